package main

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/alecthomas/kong"
)

// HelpCmd is `tcgen help [COMMAND...]`: the help of a command, as
// `tcgen COMMAND --help` prints it.
type HelpCmd struct {
	Command []string `arg:"" optional:"" help:"The command (and subcommand) to describe; none: every command."`
}

// Run implements the command.
func (c *HelpCmd) Run(kctx *kong.Context) error {
	node := kctx.Model.Node
	for _, word := range c.Command {
		next := childCommand(node, word)
		if next == nil {
			return errorf(exitUsage, "help: %q is not a command%s; commands: %s", word, under(node), strings.Join(commandNames(node), ", "))
		}
		node = next
	}
	tr, err := kong.Trace(kctx.Kong, c.Command)
	if err != nil {
		return err
	}
	if tr.Error != nil {
		return withCode(exitUsage, tr.Error)
	}
	return tr.PrintUsage(false)
}

// under names the command whose subcommands were looked in, for errors.
func under(n *kong.Node) string {
	if n.Parent == nil {
		return ""
	}
	return " of " + n.FullPath()
}

// childCommand is the visible subcommand of n named (or aliased) name.
func childCommand(n *kong.Node, name string) *kong.Node {
	for _, ch := range n.Children {
		if ch.Type != kong.CommandNode || ch.Hidden {
			continue
		}
		if ch.Name == name {
			return ch
		}
		for _, a := range ch.Aliases {
			if a == name {
				return ch
			}
		}
	}
	return nil
}

// commandNames are the visible subcommands of n.
func commandNames(n *kong.Node) []string {
	var names []string
	for _, ch := range n.Children {
		if ch.Type == kong.CommandNode && !ch.Hidden {
			names = append(names, ch.Name)
		}
	}
	return names
}

// helpPrinter is kong's help with the exit codes under every command's
// help (the application's description holds them already).
func helpPrinter(options kong.HelpOptions, ctx *kong.Context) error {
	if err := kong.DefaultHelpPrinter(options, ctx); err != nil {
		return err
	}
	if options.Summary || ctx.Selected() == nil {
		return nil
	}
	_, err := fmt.Fprintf(ctx.Stdout, "\n%s\n", exitCodesHelp)
	return err
}

// usageHint is the line under a usage error: where the command's help is.
func usageHint(n *kong.Node) string {
	path := ""
	if n != nil && n.Type == kong.CommandNode && n.Name != "help" {
		path = " " + strings.TrimPrefix(n.FullPath(), "tcgen ")
	}
	return fmt.Sprintf("Run \"tcgen help%s\" for usage.", path)
}

// parseMessage is kong's parse error, except where kong took a negative
// number for a flag (an argument, as in graph complete -3).
func parseMessage(err error) string {
	if m := unknownNegative.FindStringSubmatch(err.Error()); m != nil {
		return fmt.Sprintf("%s: a negative number is not a valid argument here", m[1])
	}
	return err.Error()
}

var unknownNegative = regexp.MustCompile(`^unknown flag (-[0-9][0-9.]*)\b`)

// negative is a number with a minus sign: a value, not a short flag.
var negative = regexp.MustCompile(`^-[0-9][0-9.]*$`)

// joinNegativeValues turns "--flag -1" into "--flag=-1" for the flags that
// take a value, so that kong reads -1 as the flag's value (and the command
// says which values it takes) instead of failing on a "short flag" -1.
func joinNegativeValues(model *kong.Application, args []string) []string {
	takes := map[string]bool{}
	var visit func(n *kong.Node)
	visit = func(n *kong.Node) {
		for _, f := range n.Flags {
			if f.IsBool() || f.IsCounter() {
				continue
			}
			takes["--"+f.Name] = true
			if f.Short != 0 {
				takes["-"+string(f.Short)] = true
			}
		}
		for _, ch := range n.Children {
			visit(ch)
		}
	}
	visit(model.Node)
	out := make([]string, 0, len(args))
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" { // the rest are positional arguments
			return append(out, args[i:]...)
		}
		if takes[a] && i+1 < len(args) && negative.MatchString(args[i+1]) {
			a += "=" + args[i+1]
			i++
		}
		out = append(out, a)
	}
	return out
}
