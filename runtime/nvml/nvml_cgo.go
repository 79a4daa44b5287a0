//go:build cgo && linux

package nvml

import (
	"fmt"
	"strconv"
	"strings"

	gonvml "github.com/NVIDIA/go-nvml/pkg/nvml"
)

// haveNVML: this build can talk to NVML.
const haveNVML = true

// Session is an initialised NVML. Open it once to read facts around many
// runs (nvmlInit is not free); Close shuts it down.
type Session struct {
	lib gonvml.Interface
}

// Open loads libnvidia-ml.so.1 and initialises NVML.
func Open() (s *Session, err error) {
	return open(gonvml.New())
}

func open(lib gonvml.Interface) (s *Session, err error) {
	defer func() {
		// go-nvml reports a missing library as a Return code; this guard
		// keeps any panic inside it from ending the command.
		if r := recover(); r != nil {
			s, err = nil, fmt.Errorf("%w: %v", ErrUnavailable, r)
		}
	}()
	if ret := lib.Init(); ret != gonvml.SUCCESS {
		return nil, fmt.Errorf("%w: nvmlInit: %v", ErrUnavailable, ret)
	}
	return &Session{lib: lib}, nil
}

// Read opens NVML, reads one GPU's facts and closes it again.
func Read(device string) (Facts, error) {
	s, err := Open()
	if err != nil {
		return Facts{}, err
	}
	defer s.Close()
	return s.Read(device)
}

// Close shuts NVML down.
func (s *Session) Close() error {
	if s == nil || s.lib == nil {
		return nil
	}
	if ret := s.lib.Shutdown(); ret != gonvml.SUCCESS {
		return fmt.Errorf("nvml: nvmlShutdown: %v", ret)
	}
	s.lib = nil
	return nil
}

// Read returns the facts of device: a UUID ("GPU-..." as the CUDA package's
// DeviceFacts.UUID gives it, the reliable way since NVML and CUDA may number
// GPUs differently), an NVML index ("0"), or "" for index 0.
func (s *Session) Read(device string) (f Facts, err error) {
	defer func() {
		if r := recover(); r != nil {
			f, err = Facts{}, fmt.Errorf("%w: %v", ErrUnavailable, r)
		}
	}()
	if s == nil || s.lib == nil {
		return Facts{}, fmt.Errorf("%w: session closed", ErrUnavailable)
	}
	var dev gonvml.Device
	var ret gonvml.Return
	switch {
	case device == "":
		dev, ret = s.lib.DeviceGetHandleByIndex(0)
	case strings.HasPrefix(device, "GPU-") || strings.HasPrefix(device, "MIG-"):
		dev, ret = s.lib.DeviceGetHandleByUUID(device)
	default:
		i, perr := strconv.Atoi(device)
		if perr != nil {
			return Facts{}, fmt.Errorf("nvml: device %q is neither a UUID nor an index", device)
		}
		dev, ret = s.lib.DeviceGetHandleByIndex(i)
	}
	if ret != gonvml.SUCCESS {
		return Facts{}, fmt.Errorf("%w: device %q: %v", ErrUnavailable, device, ret)
	}

	if v, ret := s.lib.SystemGetDriverVersion(); ret == gonvml.SUCCESS {
		f.Driver = v
	}
	if v, ret := dev.GetName(); ret == gonvml.SUCCESS {
		f.Name = v
	}
	if v, ret := dev.GetUUID(); ret == gonvml.SUCCESS {
		f.UUID = v
	}
	if m, ret := dev.GetMemoryInfo(); ret == gonvml.SUCCESS {
		f.MemoryBytes = m.Total
	}
	clock := func(get func(gonvml.ClockType) (uint32, gonvml.Return), t gonvml.ClockType) int {
		if v, ret := get(t); ret == gonvml.SUCCESS {
			return int(v)
		}
		return 0
	}
	f.SMClockMHz = clock(dev.GetClockInfo, gonvml.CLOCK_SM)
	f.MemClockMHz = clock(dev.GetClockInfo, gonvml.CLOCK_MEM)
	f.MaxSMClockMHz = clock(dev.GetMaxClockInfo, gonvml.CLOCK_SM)
	f.MaxMemClockMHz = clock(dev.GetMaxClockInfo, gonvml.CLOCK_MEM)
	if v, ret := dev.GetTemperature(gonvml.TEMPERATURE_GPU); ret == gonvml.SUCCESS {
		f.TemperatureC = int(v)
	}
	if v, ret := dev.GetPowerUsage(); ret == gonvml.SUCCESS {
		f.PowerW = float64(v) / 1000 // NVML reports milliwatts
	}
	if v, ret := dev.GetEnforcedPowerLimit(); ret == gonvml.SUCCESS {
		f.PowerLimitW = float64(v) / 1000
	}
	return f, nil
}
