package executor

import "slices"

// combine joins the devices' results of a split run: counts add up; times
// are, pass by pass, the slowest device's (the devices run at once, and a
// pass ends when the last one finishes); memory adds up.
func (mp *MultiPrepared) combine(per []*Result, recs []*passRecord) *Result {
	res := *per[0]
	res.Phases = mp.phases
	slowest := func(of func(rec *passRecord) []float64) []float64 {
		var out []float64
		for _, rec := range recs {
			for r, x := range of(rec) {
				if r == len(out) {
					out = append(out, x)
				}
				out[r] = max(out[r], x)
			}
		}
		return out
	}
	res.KernelMs = summarize(slowest(func(rec *passRecord) []float64 { return rec.totals }))
	res.GPUSamples = slowest(func(rec *passRecord) []float64 { return rec.passes })
	res.GPUMs = summarize(res.GPUSamples)
	res.PrepMs = summarize(slowest(func(rec *passRecord) []float64 { return rec.preps }))
	if res.PrepKernels != nil {
		res.PrepKernels = map[string]Timing{}
		k := 0
		for _, p := range mp.parts[0].preparers {
			for _, name := range p.prepNames() {
				res.PrepKernels[name] = summarize(slowest(func(rec *passRecord) []float64 {
					if k < len(rec.prepParts) {
						return rec.prepParts[k]
					}
					return nil
				}))
				k++
			}
		}
	}
	res.PerClass = append([]ClassResult(nil), per[0].PerClass...)
	res.Triangles, res.DeviceBytes = 0, 0
	for i := range res.PerClass {
		cr := &res.PerClass[i]
		cr.Triangles, cr.Ms = 0, summarize(slowest(func(rec *passRecord) []float64 { return rec.perClass[i] }))
		if !mp.shares[0].pivot { // a pivot class's items are every device's (built on each)
			cr.Items = 0
		}
		for _, r := range per {
			cr.Triangles += r.PerClass[i].Triangles
			if !mp.shares[0].pivot {
				cr.Items += r.PerClass[i].Items
			}
			cr.List = cr.List || r.PerClass[i].List
		}
		res.Triangles += cr.Triangles
	}
	total := mp.totalWork
	for _, sh := range mp.shares {
		if mp.totalWork == 0 {
			total += sh.work
		}
	}
	res.Devices = make([]DeviceRun, len(per))
	slow := 0
	for k, r := range per {
		res.DeviceBytes += r.DeviceBytes
		res.CopyMs = max(res.CopyMs, r.CopyMs)
		res.SrcMs = max(res.SrcMs, r.SrcMs)
		res.SlicesMs = max(res.SlicesMs, r.SlicesMs)
		res.CompileMs = max(res.CompileMs, r.CompileMs)
		res.UploadWallMs = max(res.UploadWallMs, r.UploadWallMs)
		share := 0.0
		if total > 0 {
			share = float64(mp.shares[k].work) / float64(total)
		}
		res.Devices[k] = mp.deviceRun(k, r, share)
		if r.GPUMs.Median > per[slow].GPUMs.Median {
			slow = k
		}
	}
	res.SlowestShare = res.Devices[slow].Share
	res.Rebalance = slices.Clone(mp.rounds)
	return &res
}
