package executor

import (
	"errors"
	"fmt"
	"time"

	"github.com/tcgen/tcgen/graph"
	"github.com/tcgen/tcgen/runtime/gpu"
	"github.com/tcgen/tcgen/templates"
)

// The graph's upload (graphUpload, below) and the device's half of a CSR
// file's deferred checks (listChecker): the upload copies the lists with
// their checksum only (graph.AdjCheck.FillChecksum), and a kernel checks
// them where they arrive (templates/check_lists.cu), reading the section
// once, on the device, rather than on the host cores that feed the upload
// (docs/performance.md, "End to end").
const (
	checkListsKernel = "tcgen_check_lists"
	degreesKernel    = "tcgen_degrees"  // a file oriented by degree, not relabelled (graph.ArcsByDegree)
	unpackKernel     = "tcgen_unpack24" // a packed file's lists (graph/packed.go)
	checkListsFile   = "tcgen_check_lists.cu"
	checkListsBlock  = 256 // the kernel's launch bounds
	// checkListsWaves: blocks per SM, a full SM of warps (8 x 256
	// threads), each walking one list at a time.
	checkListsWaves = 8
	// checkVerdictBytes: the kernel's answer, the lowest bad position.
	checkVerdictBytes = 8
	// degreesWaves: blocks per SM for the degrees' sums, each thread
	// adding one entry (and one vertex) at a time.
	degreesWaves = 8
	// unpackWaves: blocks per SM for the unpacking, each thread turning 12
	// bytes into 4 entries as long as there are any.
	unpackWaves = 8
)

// degreesBytes is the degrees' buffer of a file oriented by degree with n
// vertices: a word each.
func degreesBytes(n uint64) uint64 { return 4 * n }

// packedUploadBytes is the device buffer a packed section of m entries
// arrives in: whole groups of 12 bytes, what tcgen_unpack24 reads.
func packedUploadBytes(m uint64) uint64 { return (m + 3) / 4 * 12 }

// listChecker is the check kernel and the unpacking, compiled (through the
// caller's cache) and loaded for one Prepare.
type listChecker struct {
	mod     gpu.Module
	fn      gpu.Function
	degrees gpu.Function
	unpack  gpu.Function
}

// loadListChecker compiles and loads the check kernel for arch.
func loadListChecker(dev gpu.Device, comp gpu.Compiler, arch string) (*listChecker, error) {
	img, err := comp.Compile(gpu.CompileInput{Name: checkListsFile, Source: templates.CheckLists, Headers: templates.Headers(), Arch: arch})
	if err != nil {
		return nil, fmt.Errorf("compiling %s: %w", checkListsFile, err)
	}
	mod, err := dev.Load(img)
	if err != nil {
		return nil, fmt.Errorf("loading %s: %w", checkListsFile, err)
	}
	lc := &listChecker{mod: mod}
	for name, fn := range map[string]*gpu.Function{checkListsKernel: &lc.fn, degreesKernel: &lc.degrees, unpackKernel: &lc.unpack} {
		if *fn, err = mod.Function(name); err != nil {
			mod.Unload()
			return nil, fmt.Errorf("kernel %s: %w", name, err)
		}
	}
	return lc, nil
}

// unpackLists unpacks the m entries in packed into adj.
func (lc *listChecker) unpackLists(packed, adj gpu.Buffer, m uint64, sms int) error {
	grid := uint32(max(1, sms*unpackWaves))
	return lc.unpack.Launch(gpu.Dim3{X: grid, Y: 1, Z: 1}, gpu.Dim3{X: checkListsBlock, Y: 1, Z: 1}, 0, packed, adj, m)
}

// run checks the uploaded lists (pr.off and pr.adj) and reports whether
// every one is sound and its arcs follow order. A file oriented by degree
// (graph.ArcsByDegree) has its degrees summed first, into a buffer of n
// words.
func (lc *listChecker) run(pr *Prepared, sms int, order graph.ArcOrder) (bool, error) {
	bad, err := pr.alloc(checkVerdictBytes) // predicted with the plan's buffers
	if err != nil {
		return false, err
	}
	none := []uint64{^uint64(0)}
	if err := gpu.WriteSlice(bad, 0, none); err != nil {
		return false, err
	}
	var deg any = uint64(0) // a null pointer: unread
	if order == graph.ArcsByDegree {
		b, err := pr.alloc(degreesBytes(uint64(pr.n))) // predicted too
		if err != nil {
			return false, err
		}
		if err := b.Zero(); err != nil {
			return false, err
		}
		grid := uint32(max(1, sms*degreesWaves))
		if err := lc.degrees.Launch(gpu.Dim3{X: grid, Y: 1, Z: 1}, gpu.Dim3{X: checkListsBlock, Y: 1, Z: 1}, 0, pr.off, pr.adj, uint64(pr.n), pr.m, b); err != nil {
			return false, err
		}
		deg = b
	}
	grid := uint32(max(1, sms*checkListsWaves))
	if err := lc.fn.Launch(gpu.Dim3{X: grid, Y: 1, Z: 1}, gpu.Dim3{X: checkListsBlock, Y: 1, Z: 1}, 0, pr.off, pr.adj, uint64(pr.n), uint32(order), deg, bad); err != nil {
		return false, err
	}
	got := []uint64{0}
	if err := gpu.ReadSlice(bad, 0, got); err != nil { // after the kernel: same stream
		return false, err
	}
	return got[0] == none[0], nil
}

// graphUpload is an oriented graph's upload (offsets, lists, padding),
// running in the background while Prepare plans the rest: the buffers'
// sizes are known once the graph is oriented, and the host's work lists,
// memory plan, compiling (or the kernel cache) and module loads then
// overlap the copy (docs/performance.md, "End to end"). With ck (the lists'
// checks deferred) the lists are read from the file into the staging
// buffers with their checksum only (graph.AdjCheck.FillChecksum) when the
// device fills them; finish then checks them on the device and joins the
// checksum. A packed file's lists (graph/packed.go) go as stored into a
// buffer of their own, which finish unpacks into adj before the checks.
type graphUpload struct {
	off, adj gpu.Buffer
	packed   gpu.Buffer // a packed section, as stored; nil when the lists go as they are
	m        uint64
	ck       *graph.AdjCheck
	sumOnly  bool   // FillChecksum: the lists still need their verdict
	base     uint64 // added to every offset (RunOptions.IndexBase)
	timer    gpu.Timer
	done     chan struct{}
	err      error   // the copy's
	ms       float64 // its event time
	wallMs   float64 // and its wall time
}

// startGraphUpload allocates the graph's buffers and starts their upload.
func startGraphUpload(dev gpu.Device, o *graph.Oriented, ck *graph.AdjCheck, base uint64) (*graphUpload, error) {
	n, m := uint64(o.N()), o.Arcs()
	u := &graphUpload{ck: ck, base: base, done: make(chan struct{})}
	var err error
	if u.off, err = dev.Alloc((n + 1) * 8); err != nil {
		return nil, fmt.Errorf("offsets: %w", err)
	}
	if u.adj, err = dev.Alloc(adjBytes(m)); err != nil {
		u.off.Free()
		return nil, fmt.Errorf("adjacency: %w", err)
	}
	if u.timer, err = dev.NewTimer(); err != nil {
		u.off.Free()
		u.adj.Free()
		return nil, err
	}
	fw, fills := u.adj.(gpu.FillWriter)
	u.sumOnly = ck != nil && fills && m > 0
	u.m = m
	if u.sumOnly && ck.Packed() {
		if u.packed, err = dev.Alloc(packedUploadBytes(m)); err != nil {
			u.off.Free()
			u.adj.Free()
			u.timer.Close()
			return nil, fmt.Errorf("packed adjacency: %w", err)
		}
		if fw, fills = u.packed.(gpu.FillWriter); !fills {
			u.sumOnly = false // checked and unpacked on the host, sent as entries
			u.packed.Free()
			u.packed = nil
		}
	}
	go func() {
		defer close(u.done)
		start := time.Now()
		u.err = u.copy(o, fw)
		u.wallMs = msSince(start)
	}()
	return u, nil
}

func (u *graphUpload) copy(o *graph.Oriented, fw gpu.FillWriter) error {
	m := o.Arcs()
	if err := u.timer.Start(); err != nil {
		return err
	}
	if err := gpu.WriteSlice(u.off, 0, raised(o.Offsets, u.base)); err != nil {
		return fmt.Errorf("uploading offsets: %w", err)
	}
	var err error
	switch {
	case u.sumOnly: // the section as stored (packed or not), unchecked
		err = fw.WriteFrom(0, u.ck.SectionBytes(), u.ck.FillChecksum)
	case u.ck != nil:
		if err = u.ck.Finish(); err == nil { // checked on the host, then sent
			err = gpu.WriteSlice(u.adj, 0, o.Adj)
		}
	default:
		err = gpu.WriteSlice(u.adj, 0, o.Adj)
	}
	if err != nil {
		return err
	}
	if pad := adjBytes(m) - m*4; pad > 0 { // defined bytes past the last list (tiled merges read them, masked)
		if err := gpu.WriteSlice(u.adj, m*4, make([]byte, pad)); err != nil {
			return fmt.Errorf("uploading adjacency: %w", err)
		}
	}
	if err := u.timer.Stop(); err != nil {
		return err
	}
	u.ms, err = u.timer.Elapsed()
	return err
}

// wait returns when the copy is over.
func (u *graphUpload) wait() { <-u.done }

// free waits for the copy and frees what it held (an error before Prepare
// took the buffers).
func (u *graphUpload) free() {
	u.wait()
	u.off.Free()
	u.adj.Free()
	u.freePacked()
	u.timer.Close()
}

// freePacked frees the packed section's buffer, once it is unpacked.
func (u *graphUpload) freePacked() {
	if u.packed != nil {
		u.packed.Free()
		u.packed = nil
	}
}

// finish waits for the copy, checks the lists on the device (lc) when the
// copy sent them unchecked, and joins the file's checks: a graph that fails
// them gets the file's error, naming the first bad entry, and nothing runs
// on it.
func (u *graphUpload) finish(pr *Prepared, lc *listChecker, sms int) error {
	u.wait()
	u.timer.Close()
	var lerr error
	var sound bool
	if u.err == nil && u.sumOnly {
		if lc == nil {
			lerr = fmt.Errorf("lists sent unchecked, but no device check")
		} else if u.packed != nil {
			lerr = lc.unpackLists(u.packed, u.adj, u.m, sms)
		}
		if lerr == nil {
			if sound, lerr = lc.run(pr, sms, u.ck.ArcOrder()); lerr == nil {
				u.ck.ListsChecked(sound) // else Verify checks them
			}
		}
	}
	if lerr != nil && u.packed != nil {
		// The unpacking may still be queued: wait before freeing what it reads.
		if err := pr.dev.Synchronize(); err != nil {
			lerr = errors.Join(lerr, err)
		}
	}
	u.freePacked() // unpacked: the check's verdict, read after it on the same stream, waited
	if u.ck != nil {
		// Verify, not Finish: the host needs not the lists (a packed
		// file's stay packed in its mapping).
		if err := u.ck.Verify(); err != nil {
			return err // the file's first bad entry, also when a fill failed
		}
	}
	if u.err != nil {
		return u.err
	}
	if lerr == nil && u.sumOnly && !sound {
		// The file's lists pass on the host but not as they arrived: the
		// copy on the device is not the file, and nothing may count it.
		return fmt.Errorf("the lists on the device fail the checks the file passes: the upload changed them")
	}
	return lerr
}
