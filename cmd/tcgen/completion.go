package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/alecthomas/kong"

	"github.com/tcgen/tcgen/examples"
	"github.com/tcgen/tcgen/ir"
)

// CompletionCmd prints a shell's completion script. The scripts are small:
// they ask tcgen itself (completeCommand) for the words that fit, so the
// commands, flags, enum values, presets and built-in examples they offer
// are always those of the binary.
type CompletionCmd struct {
	Shell string `arg:"" enum:"bash,zsh,fish" help:"The shell: bash, zsh or fish."`
}

// completeCommand is the hidden command the scripts call: the words typed
// after tcgen, the last one the word being completed (may be empty). It
// prints one candidate a line ("word<TAB>description"), then ":files" when
// file names fit there too or ":words" when they do not.
const completeCommand = "__complete"

// Run implements the command.
func (c *CompletionCmd) Run(g *Globals) error {
	_, err := io.WriteString(g.stdout, completionScripts[c.Shell])
	return err
}

var completionScripts = map[string]string{
	// bash: source <(tcgen completion bash). COMP_WORDS splits --flag=value
	// at '=' into three words; completions reads them so.
	"bash": `# tcgen completion for bash: source <(tcgen completion bash)
_tcgen() {
    local cur=${COMP_WORDS[COMP_CWORD]} IFS=$'\n' out last
    out=($(tcgen ` + completeCommand + ` "${COMP_WORDS[@]:1:COMP_CWORD}" 2>/dev/null)) || return
    last=${out[${#out[@]}-1]}
    unset 'out[${#out[@]}-1]'
    [[ $cur == = ]] && cur=
    COMPREPLY=($(compgen -W "$(printf '%s\n' "${out[@]%%$'\t'*}")" -- "$cur"))
    if [[ $last == :files ]]; then
        compopt -o filenames 2>/dev/null
        COMPREPLY+=($(compgen -f -- "$cur"))
    fi
}
complete -F _tcgen tcgen
`,
	// zsh: source <(tcgen completion zsh), or save it as _tcgen in $fpath.
	"zsh": `#compdef tcgen
# tcgen completion for zsh: source <(tcgen completion zsh), or save as _tcgen in $fpath
_tcgen() {
    local -a out described
    local last line
    out=("${(@f)$(tcgen ` + completeCommand + ` "${(@)words[2,CURRENT]}" 2>/dev/null)}")
    last=${out[-1]}
    out=("${(@)out[1,-2]}")
    for line in $out; do
        if [[ $line == *$'\t'* ]]; then
            described+=("${${line%%$'\t'*}//:/\\:}:${line#*$'\t'}")
        else
            described+=("${line//:/\\:}")
        fi
    done
    (( ${#described} )) && _describe -t values tcgen described
    [[ $last == :files ]] && _files
}
# Autoloaded from $fpath: complete now; sourced: register.
if [[ "$funcstack[1]" == _tcgen ]]; then
    _tcgen "$@"
else
    compdef _tcgen tcgen
fi
`,
	// fish: tcgen completion fish > ~/.config/fish/completions/tcgen.fish
	"fish": `# tcgen completion for fish: tcgen completion fish > ~/.config/fish/completions/tcgen.fish
function __tcgen_complete
    set -l args (commandline -opc)
    set -e args[1]
    set -l out (tcgen ` + completeCommand + ` $args (commandline -ct) 2>/dev/null)
    set -l last $out[-1]
    set -e out[-1]
    if test (count $out) -eq 0; and test "$last" = ":files"
        __fish_complete_path (commandline -ct)
    else
        printf '%s\n' $out
    end
end
complete -c tcgen -f -a '(__tcgen_complete)'
`,
}

// complete prints the candidates for the last of words (completeCommand).
func complete(parser *kong.Kong, words []string, w io.Writer) int {
	if len(words) == 0 {
		words = []string{""}
	}
	cands, files := completions(parser.Model, words[:len(words)-1], words[len(words)-1])
	for _, c := range cands {
		fmt.Fprintln(w, c)
	}
	if files {
		fmt.Fprintln(w, ":files")
	} else {
		fmt.Fprintln(w, ":words")
	}
	return exitOK
}

// completions walks the typed words through kong's model and returns the
// candidates for cur with their descriptions, and whether file names fit.
func completions(app *kong.Application, typed []string, cur string) (cands []string, files bool) {
	node := app.Node
	var pending *kong.Flag // a flag whose value comes next
	var args []string      // the positional arguments typed
	for _, word := range typed {
		positional := len(args)
		switch {
		case pending != nil && word == "=": // bash splits --flag=value at '='
		case pending != nil:
			pending = nil
		case word == "--":
		case strings.HasPrefix(word, "-") && len(word) > 1:
			name, _, hasValue := strings.Cut(word, "=")
			if f := findFlag(node, name); f != nil && !hasValue && !f.IsBool() && !f.IsCounter() {
				pending = f
			}
		default:
			if ch := childCommand(node, word); ch != nil && positional == 0 {
				node = ch
			} else {
				args = append(args, word)
			}
		}
	}
	if pending != nil {
		if cur == "=" {
			cur = ""
		}
		return filter(flagValues(pending), cur), takesFile(pending.Value)
	}
	if name, val, ok := strings.Cut(cur, "="); ok && strings.HasPrefix(cur, "-") {
		f := findFlag(node, name)
		if f == nil || f.IsBool() {
			return nil, false
		}
		var out []string
		for _, v := range filter(flagValues(f), val) {
			out = append(out, name+"="+v)
		}
		return out, false
	}
	if strings.HasPrefix(cur, "-") {
		var out []string
		for _, group := range node.AllFlags(true) {
			for _, f := range group {
				out = append(out, "--"+f.Name+"\t"+firstSentence(f.Help))
			}
		}
		return filter(out, cur), false
	}
	if len(args) == 0 {
		cands = commandsOf(node)
	}
	if node.Name == "help" && node.Parent == app.Node { // tcgen help graph <TAB>: graph's commands
		n := app.Node
		for _, a := range args {
			if n = childCommand(n, a); n == nil {
				return nil, false
			}
		}
		return filter(commandsOf(n), cur), false
	}
	if len(args) < len(node.Positional) {
		arg := node.Positional[len(args)]
		cands = append(cands, argValues(node, arg)...)
		files = files || takesFile(arg)
	}
	return filter(cands, cur), files
}

// commandsOf lists n's visible subcommands with their descriptions.
func commandsOf(n *kong.Node) []string {
	var out []string
	for _, ch := range n.Children {
		if ch.Type == kong.CommandNode && !ch.Hidden {
			out = append(out, ch.Name+"\t"+firstSentence(ch.Help))
		}
	}
	return out
}

// findFlag is the flag of n or of a command above it named by word
// ("--name" or "-s").
func findFlag(n *kong.Node, word string) *kong.Flag {
	for ; n != nil; n = n.Parent {
		for _, f := range n.Flags {
			if word == "--"+f.Name || (f.Short != 0 && word == "-"+string(f.Short)) {
				return f
			}
		}
	}
	return nil
}

// flagValues are the values a flag takes that can be listed: its enum,
// the presets, the built-in examples.
func flagValues(f *kong.Flag) []string {
	switch f.Name {
	case "preset":
		return ir.PresetNames()
	case "spec":
		return examples.Names(examples.Plans)
	case "space":
		return examples.Names(examples.Spaces)
	}
	if f.Enum != "" {
		return f.EnumSlice()
	}
	return nil
}

// argValues are the listable values of a positional argument of n.
func argValues(n *kong.Node, arg *kong.Value) []string {
	switch {
	case arg.Enum != "":
		return arg.EnumSlice()
	case n.Name == "sweep":
		return examples.Names(examples.Sweeps)
	}
	return nil
}

// takesFile reports whether a file name fits the value: flags and
// arguments with a FILE, DIR or PATH placeholder or a path type, and
// graphs.
func takesFile(v *kong.Value) bool {
	if v.Enum != "" {
		return false
	}
	if v.Tag != nil && (v.Tag.Type == "path" || v.Tag.Type == "existingfile" || v.Tag.Type == "existingdir") {
		return true
	}
	if v.Flag != nil {
		ph := v.Flag.PlaceHolder
		return ph == "FILE" || ph == "DIR" || ph == "PATH"
	}
	return v.Name == "graph" || v.Name == "file"
}

// filter keeps the candidates that start with prefix.
func filter(cands []string, prefix string) []string {
	var out []string
	for _, c := range cands {
		if strings.HasPrefix(c, prefix) {
			out = append(out, c)
		}
	}
	return out
}

// firstSentence shortens help text to a completion menu's description.
func firstSentence(s string) string {
	if i := strings.Index(s, ". "); i >= 0 {
		s = s[:i]
	}
	return strings.TrimSuffix(s, ".")
}
