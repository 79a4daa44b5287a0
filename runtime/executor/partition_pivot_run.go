package executor

import "fmt"

// The pivot's pass over a block (partition_pivot.go). An own pair's
// in-edges come from the block's vertices before its targets' end, whose
// rows come first: the block's rows arrive in pieces, each ending where an
// own pair's targets end, and each own pair counts as soon as its piece is
// in while the next piece copies; the block's copy, which for the merge
// runs while nothing counts, overlaps the own pairs. The offsets' rebase
// and the core kernel follow the pieces. The streamed pairs, which need
// the whole block, follow as for the merge, their chunks copied after the
// block's last piece, two ahead of their counts.

// blockPieces follows a block's pieces: the vertices whose rows are queued
// to copy, and those rebased (and their core counted).
type blockPieces struct {
	pt              *Partitioned
	lo              uint32 // the block's first vertex
	copied, rebased uint32
}

// copyTo queues the copy of the rows of the vertices up to end on the copy
// stream and records blockIn after it.
func (b *blockPieces) copyTo(end uint32) error {
	pt := b.pt
	if end <= b.copied {
		return nil
	}
	off := pt.o.Offsets
	if err := pt.upload(b.copied, end, off[b.copied]-off[b.lo]); err != nil {
		return err
	}
	if err := pt.copier.Record(pt.blockIn); err != nil {
		return fmt.Errorf("plan %s: event: %w", pt.name, err)
	}
	b.copied = end
	return nil
}

// rebaseTo queues on the compute stream, once the rows up to end are in
// (the last blockIn recorded), the rebase of their offsets and the core
// kernel over their rows.
func (b *blockPieces) rebaseTo(end uint32) error {
	pt := b.pt
	if end <= b.rebased {
		return nil
	}
	if err := pt.await(pt.compute, pt.blockIn); err != nil {
		return err
	}
	off := pt.o.Offsets
	if err := pt.rebase(b.rebased, end, off[b.rebased]-off[b.lo]); err != nil {
		return err
	}
	if err := pt.pv.coreRows(pt, b.rebased, end); err != nil {
		return err
	}
	b.rebased = end
	return nil
}

// pivotBlockPass queues the steps of the block whose step is pt.steps[i]:
// its pieces and own pairs, then its streamed pairs (blockPass's schedule).
// It returns the number of steps.
func (pt *Partitioned) pivotBlockPass(i int) (int, error) {
	st := &pt.steps[i]
	n := 1
	for i+n < len(pt.steps) && pt.steps[i+n].pair >= 0 {
		n++
	}
	pairs := pt.steps[i+1 : i+n]
	lo, hi := pt.part.blockRange(st.block)
	blockRows := pt.o.Offsets[hi] - pt.o.Offsets[lo]
	b := &blockPieces{pt: pt, lo: lo, copied: lo, rebased: lo}
	if err := pt.await(pt.copier, pt.idle); err != nil { // the window is free
		return 0, err
	}
	if err := st.copyT.Start(); err != nil {
		return 0, fmt.Errorf("plan %s: timer: %w", pt.name, err)
	}
	var chunks []*partStep // the streamed pairs in order: chunk j goes to slot j % 2
	for k := range pairs {
		if pt.part.pairs[pairs[k].pair].streamed() {
			chunks = append(chunks, &pairs[k])
		}
	}
	copied, counted := 0, 0 // chunks queued to copy, and counted
	copyNext := func(upto int) error {
		for ; copied < min(upto, len(chunks)); copied++ {
			if err := pt.chunkCopy(chunks[copied], copied%2, blockRows); err != nil {
				return err
			}
		}
		return nil
	}
	queued := false // the block's last piece and the first chunks
	whole := func() error {
		if queued {
			return nil
		}
		queued = true
		if err := b.copyTo(hi); err != nil {
			return err
		}
		if err := st.copyT.Stop(); err != nil {
			return fmt.Errorf("plan %s: timer: %w", pt.name, err)
		}
		return copyNext(2)
	}
	for k := range pairs {
		q := pt.part.pairs[pairs[k].pair]
		need, slot := hi, -1
		if q.own {
			_, need = pt.part.targets(q)
			if err := b.copyTo(need); err != nil {
				return 0, err
			}
		} else {
			if err := whole(); err != nil {
				return 0, err
			}
			slot = counted % 2
		}
		if err := pt.pairStep(&pairs[k], slot, blockRows, func() error { return b.rebaseTo(need) }); err != nil {
			return 0, err
		}
		if slot >= 0 {
			counted++
			if err := copyNext(counted + 2); err != nil { // its slot is free once counted
				return 0, err
			}
		}
	}
	if err := whole(); err != nil { // the rest of the block, for the core kernel
		return 0, err
	}
	if err := pt.timed(st.kernel, func() error { return b.rebaseTo(hi) }); err != nil {
		return 0, err
	}
	if err := pt.compute.Record(pt.idle); err != nil {
		return 0, fmt.Errorf("plan %s: event: %w", pt.name, err)
	}
	return n, nil
}
