package main

import (
	"fmt"
	"hash/fnv"
	"io"
	"time"

	"github.com/tcgen/tcgen/graph"
	"github.com/tcgen/tcgen/ir"
	"github.com/tcgen/tcgen/runtime/cuda"
	"github.com/tcgen/tcgen/runtime/executor"
	"github.com/tcgen/tcgen/runtime/mpi"
)

// count --mpi: every rank of an MPI launch (mpirun, srun) reads the graph
// and counts its share of the work, on the GPU of its local rank
// (executor.PrepareShare) or with --backend cpu on the CPU
// (graph.CountTrianglesShareContext); the counts are summed exactly and
// rank 0 prints the result.

// mpiResult is what count --mpi adds to rank 0's output.
type mpiResult struct {
	Ranks int `json:"ranks"`
	// RankTriangles and RankMs are each rank's count and time (its timed
	// pass on the GPU, its count on the CPU); SlowestMs their maximum.
	RankTriangles []uint64  `json:"rank_triangles"`
	RankMs        []float64 `json:"rank_ms"`
	SlowestMs     float64   `json:"slowest_rank_ms"`
}

// checkMPI refuses flags that --mpi does not combine with.
func (c *CountCmd) checkMPI() error {
	switch {
	case !c.MPI:
		return nil
	case c.GPUs != "":
		return errorf(exitUsage, "count: --mpi counts on one GPU per rank; --gpus is not implemented with it")
	case c.localFlag() != "":
		return errorf(exitUsage, "count: --mpi counts the total only; %s is not implemented with it", c.localFlag())
	case c.DeviceMemory != "":
		return errorf(exitUsage, "count: --device-memory is not implemented with --mpi")
	}
	return nil
}

// countMPI is count under MPI. A rank that fails prints its error and
// ends every rank with its exit code: the others would wait for it
// forever.
func (c *CountCmd) countMPI(g *Globals, p ir.Plan, start time.Time, planMs float64) error {
	comm, err := mpi.Init()
	if err != nil {
		return withCode(exitNoMPI, fmt.Errorf("count: --mpi: %w", err))
	}
	res, l, o, err := c.countRank(g, comm, p, start, planMs)
	if err != nil && comm.Size > 1 {
		fmt.Fprintf(g.stderr, "tcgen: rank %d of %d: %v\n", comm.Rank, comm.Size, err)
		comm.Abort(exitCode(err))
	}
	if ferr := comm.Finalize(); err == nil && ferr != nil {
		err = ferr
	}
	if err != nil || comm.Rank != 0 {
		return err
	}
	if err := c.verify(g, l.g, o, res); err != nil {
		return err
	}
	return printCount(g, c.JSON, res)
}

// countRank counts this rank's share and sums the ranks' counts; every
// rank gets the total. It returns the graph read for --check.
func (c *CountCmd) countRank(g *Globals, comm *mpi.Comm, p ir.Plan, start time.Time, planMs float64) (*countResult, *loaded, *graph.Oriented, error) {
	l, err := g.loadDeferred(c.GraphArg, false)
	if err != nil {
		return nil, nil, nil, err
	}
	o := graph.FileOriented(l.g, l.rep)
	if err := l.checked(); err != nil {
		return nil, nil, nil, err
	}
	res := c.newResult(l, o, planMs)
	onGPU := false
	if c.Backend != "cpu" {
		err = c.countShareGPU(g, comm, p, l.g, o, &res)
		switch {
		case err == nil:
			onGPU = true
		case c.Backend == "auto" && noGPU(err):
			g.notice("count: rank %d: no usable GPU (%v): counting its share with the CPU oracle", comm.Rank, err)
		default:
			return nil, nil, nil, err
		}
	}
	if !onGPU {
		if err := c.countShareCPU(g, comm, l.g, o, &res); err != nil {
			return nil, nil, nil, err
		}
	}
	res.TotalMs = msSince(start)
	if err := sumRanks(comm, &res); err != nil {
		return nil, nil, nil, err
	}
	return &res, l, o, nil
}

// sumRanks replaces res's count and time with the ranks' sum and slowest,
// after checking that every rank counted with the same plan: shares of
// different plans (a store's pick for another GPU, the oracle beside a
// plan) do not tile the work.
func sumRanks(comm *mpi.Comm, res *countResult) error {
	h := fnv.New64a()
	h.Write([]byte(res.Plan))
	mine := h.Sum64()
	tri := make([]uint64, comm.Size+2)
	tri[comm.Rank] = res.Triangles
	tri[comm.Size] = mine
	tri[comm.Size+1] = 1 // the ranks that reported
	ms := make([]float64, comm.Size)
	ms[comm.Rank] = res.CountMs
	if err := comm.SumUint64s(tri); err != nil {
		return err
	}
	if err := comm.MaxFloat64s(ms); err != nil {
		return err
	}
	// Equal plans: the sum of the hashes is the ranks' number times mine
	// on every rank (mod 2^64; a collision of different plans is a
	// 64-bit coincidence).
	if tri[comm.Size] != mine*uint64(comm.Size) {
		return errorf(exitUsage, "count --mpi: the ranks did not all count with plan %s; give --preset or --spec (or --backend cpu) so that they do", res.Plan)
	}
	m := &mpiResult{Ranks: comm.Size, RankTriangles: tri[:comm.Size], RankMs: ms}
	res.Triangles = 0
	for k := range m.RankTriangles {
		res.Triangles += m.RankTriangles[k]
		m.SlowestMs = max(m.SlowestMs, ms[k])
	}
	res.MPI, res.CountMs = m, m.SlowestMs
	if res.CountMs > 0 {
		res.EdgesPerSec = float64(res.Edges) / (res.CountMs / 1e3)
	}
	return nil
}

// countShareCPU counts the rank's share of the middle vertices with the
// CPU oracle.
func (c *CountCmd) countShareCPU(g *Globals, comm *mpi.Comm, gr *graph.Graph, o *graph.Oriented, res *countResult) error {
	res.Backend, res.Plan = "cpu", "oracle"
	res.Device = fmt.Sprintf("CPU, %d ranks", comm.Size)
	if err := g.oracleFits(gr, o, false, false); err != nil {
		return err
	}
	o, err := g.oracleOrientation(gr, o, &res.PrepareMs)
	if err != nil {
		return err
	}
	pb := newProgress(g.Quiet || comm.Rank != 0, "counting (CPU oracle, rank 0's share)", "edges")
	defer pb.Done()
	start := time.Now()
	res.Triangles, err = graph.CountTrianglesShareContext(g.ctx, o, comm.Rank, comm.Size, pb.Update)
	res.CountMs = msSince(start)
	return err
}

// countShareGPU counts the rank's share on the GPU of its local rank
// (modulo the GPUs the driver reports): a first pass, then the timed ones.
func (c *CountCmd) countShareGPU(g *Globals, comm *mpi.Comm, p ir.Plan, gr *graph.Graph, o *graph.Oriented, res *countResult) error {
	facts, err := cuda.Devices()
	if err != nil {
		return withCode(exitNoGPU, err)
	}
	if len(facts) == 0 {
		return withCode(exitNoGPU, cuda.ErrNoDevice)
	}
	ord := mpi.LocalRank(comm.Rank) % len(facts)
	d, comp, err := g.openGPU(GPUFlags{Device: ord, NVRTC: c.NVRTC})
	if err != nil {
		return err
	}
	defer d.Close()
	if c.Preset == "" && c.Spec == "" {
		p, res.PlanSource = g.choosePlan(p, gr, o, d.Facts(), comp)
	}
	res.Backend, res.Device, res.Plan = "gpu", fmt.Sprintf("%d ranks, rank 0 on GPU %d: %s", comm.Size, ord, d.Facts().Name), p.Name()
	prepStart := time.Now()
	popt := executor.RunOptions{}
	if o != nil {
		gr, popt.Oriented = nil, o
	}
	mp, err := executor.PrepareShare(g.ctx, d, ord, comp, p, gr, popt, comm.Rank, comm.Size)
	if err != nil {
		return gpuError(err)
	}
	defer mp.Close()
	res.PrepareMs = msSince(prepStart)
	timed := executor.RunOptions{Repeat: c.Repeat, Warmup: c.Warmup, PassOnly: c.PassOnly, NoGraph: c.NoGraph, FlushL2: c.FlushL2}
	// Every rank recuts alike from every rank's time, gathered as maxima
	// over zeros (each rank fills its own place).
	recut := func(last *executor.Result) (executor.RebalanceRound, error) {
		ms := make([]float64, comm.Size)
		ms[comm.Rank] = last.GPUMs.Median
		if err := comm.MaxFloat64s(ms); err != nil {
			return executor.RebalanceRound{}, err
		}
		return mp.RebalanceMeasured(ms), nil
	}
	// A rank's share, so its count, moves with the cuts: the ranks' sum is
	// checked, and a pass on the final cuts is the timed runs' reference.
	sameTotal := func(first, run *executor.Result) error {
		sums := []uint64{first.Triangles, run.Triangles}
		if err := comm.SumUint64s(sums); err != nil {
			return err
		}
		if sums[0] != sums[1] {
			return errorf(exitMismatch, "plan %s: the ranks' counts disagree (%d then %d triangles after a rebalance): nondeterministic kernel", p.Name(), sums[0], sums[1])
		}
		return nil
	}
	out, err := c.runGPU(g, mp, p, timed, res, time.Now(), func(first *executor.Result) (*executor.Result, error) {
		moved, err := c.rebalance(g, mp, first, recut, sameTotal)
		if err != nil || !moved {
			return first, err
		}
		ref, err := mp.Run(g.ctx, executor.RunOptions{Repeat: 1})
		if err != nil {
			return nil, gpuError(err)
		}
		return ref, sameTotal(first, ref)
	})
	if err != nil {
		return err
	}
	res.CountMs = out.GPUMs.Median // the rank's pass, as the slowest rank's is reported
	res.Devices, res.Rebalance = out.Devices, out.Rebalance
	return nil
}

// printRanks adds a line per rank of a --mpi count to count's text output.
func printRanks(w io.Writer, r *countResult) {
	m := r.MPI
	if m == nil {
		return
	}
	fmt.Fprintf(w, "ranks\t%d, counts summed with MPI_Allreduce; the slowest rank took %.4f ms\n", m.Ranks, m.SlowestMs)
	for k := range m.RankTriangles {
		fmt.Fprintf(w, "rank %d\t%d triangles, %.4f ms\n", k, m.RankTriangles[k], m.RankMs[k])
	}
}
