package main

import "github.com/tcgen/tcgen/runtime/nvml"

// clocks reads the SM and memory clocks and the temperature of device (a
// UUID) for each measurement of tune and sweep, through one NVML session
// opened on first use and shut down when the command ends, not an
// nvmlInit and nvmlShutdown per measurement (nvml.Session: "nvmlInit is not
// free"), which a sweep of small graphs takes tens of thousands of.
func (g *Globals) clocks(device string) func() (smMHz, memMHz, tempC int, err error) {
	return func() (int, int, int, error) {
		g.nvmlOnce.Do(func() {
			g.nvml, g.nvmlErr = nvml.Open()
			if g.nvmlErr == nil {
				g.atEnd(func() { g.nvml.Close() })
			}
		})
		if g.nvmlErr != nil {
			return 0, 0, 0, g.nvmlErr
		}
		f, err := g.nvml.Read(device)
		return f.SMClockMHz, f.MemClockMHz, f.TemperatureC, err
	}
}
