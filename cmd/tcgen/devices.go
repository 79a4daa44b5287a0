package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"github.com/tcgen/tcgen/runtime/gpu"
	"text/tabwriter"

	"github.com/tcgen/tcgen/runtime/cuda"
	"github.com/tcgen/tcgen/runtime/nvml"
)

// GPUFlags are the flags of commands that may use a GPU.
type GPUFlags struct {
	Device int    `help:"GPU ordinal." default:"0"`
	NVRTC  string `help:"Path of libnvrtc.so to use (default: $CUDA_HOME/lib64, /usr/local/cuda/lib64, then libnvrtc.so.13, .12, .11.2)." placeholder:"PATH" type:"path"`
}

// Validate refuses a negative ordinal before anything runs (kong calls it;
// a command without a GPU would otherwise ignore it).
func (f GPUFlags) Validate() error {
	if f.Device < 0 {
		return fmt.Errorf("--device %d: a GPU ordinal is 0 or more (tcgen devices lists them)", f.Device)
	}
	return nil
}

// DevicesCmd lists GPUs.
type DevicesCmd struct {
	JSON bool `help:"Print as JSON."`
}

type deviceRow struct {
	gpu.DeviceFacts
	NVML *nvml.Facts `json:"nvml,omitempty"`
}

// devicesJSON is what devices --json prints: the GPUs, and why there are
// none when none opens.
type devicesJSON struct {
	Devices []deviceRow `json:"devices"`
	Error   string      `json:"error,omitempty"`
}

// Run implements the command.
func (c *DevicesCmd) Run(g *Globals) error {
	facts, err := cuda.Devices()
	if err != nil {
		err = withCode(exitNoGPU, fmt.Errorf("devices: %w", err))
		if c.JSON { // valid JSON all the same: no devices, and the reason
			if perr := printJSON(g, devicesJSON{Devices: []deviceRow{}, Error: err.Error()}); perr != nil {
				return perr
			}
		}
		return err
	}
	rows := make([]deviceRow, len(facts))
	for i, f := range facts {
		rows[i].DeviceFacts = f
		// NVML adds live clocks, temperature and power; without it the
		// driver API's facts stand alone.
		if nf, err := nvml.Read(f.UUID); err == nil {
			nf := nf
			nf.Apply(&rows[i].DeviceFacts)
			rows[i].NVML = &nf
		} else if !errors.Is(err, nvml.ErrUnavailable) {
			g.notice("devices: NVML: %v", err)
		}
	}
	if c.JSON {
		return printJSON(g, devicesJSON{Devices: rows})
	}
	tw := tabwriter.NewWriter(g.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "#\tNAME\tCC\tSMS\tMEMORY\tBANDWIDTH\tL2\tSHARED/BLOCK\tDRIVER\tCLOCK\tTEMP")
	for i, r := range rows {
		clock, temp, bw := "-", "-", "-"
		if b := r.BandwidthGBs(); b > 0 {
			bw = fmt.Sprintf("%.0f GB/s", b)
		}
		if r.ClockMHz > 0 {
			clock = fmt.Sprintf("%d MHz", r.ClockMHz)
		}
		if r.TemperatureC > 0 {
			temp = fmt.Sprintf("%d C", r.TemperatureC)
		}
		fmt.Fprintf(tw, "%d\t%s\t%d.%d\t%d\t%.1f GiB\t%s\t%d MiB\t%d KiB\t%d.%d\t%s\t%s\n", i, r.Name, r.Major, r.Minor, r.SMs,
			float64(r.MemoryBytes)/(1<<30), bw, r.L2Bytes>>20, r.SharedOptin>>10, r.Driver/1000, r.Driver%1000/10, clock, temp)
	}
	return tw.Flush()
}

// printJSON writes v indented on stdout.
func printJSON(g *Globals, v any) error {
	enc := json.NewEncoder(g.stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
