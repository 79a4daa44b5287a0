package runtime

import (
	"fmt"

	"github.com/tcgen/tcgen/graph"
	"github.com/tcgen/tcgen/templates"
)

// The GPU's half of a CSR file's deferred checks: the upload copies the
// lists with their checksum only (graph.AdjCheck.FillChecksum), and this
// kernel checks them where they arrive (templates/check_lists.cu), reading
// the section once at device bandwidth. On the H100 machine the host cores
// that fed the upload spent about 45 ms of RMAT-24's 105 ms upload on these
// checks (docs/performance.md, "End to end").
const (
	checkListsKernel = "tcgen_check_lists"
	checkListsFile   = "tcgen_check_lists.cu"
	checkListsBlock  = 256 // the kernel's launch bounds
	// checkListsWaves: blocks per SM. A warp per vertex at a time, so a
	// few resident blocks per SM keep enough loads in flight.
	checkListsWaves = 8
)

// listChecker is the check kernel, compiled (through the caller's cache)
// and loaded for one Prepare.
type listChecker struct {
	mod Module
	fn  Function
}

// loadListChecker compiles and loads the check kernel for arch.
func loadListChecker(dev Device, comp Compiler, arch string) (*listChecker, error) {
	img, err := comp.Compile(CompileInput{Name: checkListsFile, Source: templates.CheckLists, Arch: arch})
	if err != nil {
		return nil, fmt.Errorf("compiling %s: %w", checkListsFile, err)
	}
	mod, err := dev.Load(img)
	if err != nil {
		return nil, fmt.Errorf("loading %s: %w", checkListsFile, err)
	}
	fn, err := mod.Function(checkListsKernel)
	if err != nil {
		mod.Unload()
		return nil, fmt.Errorf("kernel %s: %w", checkListsKernel, err)
	}
	return &listChecker{mod: mod, fn: fn}, nil
}

// run checks the uploaded lists (pr.off and pr.adj) and reports whether
// every one is sound.
func (lc *listChecker) run(pr *Prepared, sms int) (bool, error) {
	bad, err := pr.dev.Alloc(8)
	if err != nil {
		return false, err
	}
	defer bad.Free()
	none := []uint64{^uint64(0)}
	if err := WriteSlice(bad, 0, none); err != nil {
		return false, err
	}
	grid := uint32(max(1, sms*checkListsWaves))
	if err := lc.fn.Launch(Dim3{X: grid, Y: 1, Z: 1}, Dim3{X: checkListsBlock, Y: 1, Z: 1}, 0, pr.off, pr.adj, uint64(pr.n), bad); err != nil {
		return false, err
	}
	got := []uint64{0}
	if err := ReadSlice(bad, 0, got); err != nil { // after the kernel: same stream
		return false, err
	}
	return got[0] == none[0], nil
}

// uploadAdj copies o's lists to pr.adj. With ck (their checks deferred),
// the upload reads them from the file into the staging buffers, checking
// each piece there (or, with lc, only its checksum, the lists then checked
// on the device), and then joins the checks; a graph that fails them gets
// the file's error, naming the first bad entry, and nothing runs on it.
func (pr *Prepared) uploadAdj(o *graph.Oriented, ck *graph.AdjCheck, lc *listChecker, sms int) error {
	b := pr.adj
	fw, ok := b.(FillWriter)
	if ck == nil || !ok || len(o.Adj) == 0 {
		if ck != nil {
			if err := ck.Finish(); err != nil {
				return err
			}
		}
		return WriteSlice(b, 0, o.Adj)
	}
	fill := ck.Fill
	if lc != nil {
		fill = ck.FillChecksum
	}
	werr := fw.WriteFrom(0, 4*uint64(len(o.Adj)), fill)
	var lerr error
	if werr == nil && lc != nil {
		var sound bool
		if sound, lerr = lc.run(pr, sms); lerr == nil {
			ck.ListsChecked(sound) // else Finish checks them
		}
	}
	if err := ck.Finish(); err != nil {
		return err // the file's first bad entry, also when a fill failed
	}
	if werr != nil {
		return werr
	}
	return lerr
}
