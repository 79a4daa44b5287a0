//go:build cgo && linux

package nvml

import (
	"errors"
	"testing"

	gonvml "github.com/NVIDIA/go-nvml/pkg/nvml"
	"github.com/NVIDIA/go-nvml/pkg/nvml/mock"
)

func fakeDevice() *mock.Device {
	return &mock.Device{
		GetNameFunc: func() (string, gonvml.Return) { return "NVIDIA H200", gonvml.SUCCESS },
		GetUUIDFunc: func() (string, gonvml.Return) { return "GPU-0011", gonvml.SUCCESS },
		GetMemoryInfoFunc: func() (gonvml.Memory, gonvml.Return) {
			return gonvml.Memory{Total: 141 << 30}, gonvml.SUCCESS
		},
		GetClockInfoFunc: func(c gonvml.ClockType) (uint32, gonvml.Return) {
			if c == gonvml.CLOCK_SM {
				return 1980, gonvml.SUCCESS
			}
			return 3201, gonvml.SUCCESS
		},
		GetMaxClockInfoFunc: func(c gonvml.ClockType) (uint32, gonvml.Return) {
			return 0, gonvml.ERROR_NOT_SUPPORTED
		},
		GetTemperatureFunc:        func(gonvml.TemperatureSensors) (uint32, gonvml.Return) { return 38, gonvml.SUCCESS },
		GetPowerUsageFunc:         func() (uint32, gonvml.Return) { return 123456, gonvml.SUCCESS },
		GetEnforcedPowerLimitFunc: func() (uint32, gonvml.Return) { return 700000, gonvml.SUCCESS },
	}
}

func fakeLib(dev gonvml.Device) *mock.Interface {
	return &mock.Interface{
		InitFunc:     func() gonvml.Return { return gonvml.SUCCESS },
		ShutdownFunc: func() gonvml.Return { return gonvml.SUCCESS },
		DeviceGetHandleByIndexFunc: func(i int) (gonvml.Device, gonvml.Return) {
			if i != 0 {
				return nil, gonvml.ERROR_INVALID_ARGUMENT
			}
			return dev, gonvml.SUCCESS
		},
		DeviceGetHandleByUUIDFunc: func(u string) (gonvml.Device, gonvml.Return) {
			if u != "GPU-0011" {
				return nil, gonvml.ERROR_NOT_FOUND
			}
			return dev, gonvml.SUCCESS
		},
		SystemGetDriverVersionFunc: func() (string, gonvml.Return) { return "580.65.06", gonvml.SUCCESS },
	}
}

func TestReadMock(t *testing.T) {
	s, err := open(fakeLib(fakeDevice()))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, id := range []string{"", "0", "GPU-0011"} {
		f, err := s.Read(id)
		if err != nil {
			t.Fatalf("Read(%q): %v", id, err)
		}
		want := Facts{Name: "NVIDIA H200", UUID: "GPU-0011", Driver: "580.65.06", MemoryBytes: 141 << 30,
			SMClockMHz: 1980, MemClockMHz: 3201, TemperatureC: 38, PowerW: 123.456, PowerLimitW: 700}
		if f != want {
			t.Errorf("Read(%q) = %+v\nwant %+v", id, f, want)
		}
	}
	for _, id := range []string{"1", "GPU-ffff", "first"} {
		if _, err := s.Read(id); err == nil {
			t.Errorf("Read(%q) succeeded", id)
		}
	}
}

func TestOpenFailures(t *testing.T) {
	lib := fakeLib(nil)
	lib.InitFunc = func() gonvml.Return { return gonvml.ERROR_LIBRARY_NOT_FOUND }
	if _, err := open(lib); !errors.Is(err, ErrUnavailable) {
		t.Errorf("Init failing: %v, want ErrUnavailable", err)
	}
	lib.InitFunc = func() gonvml.Return { return gonvml.ERROR_DRIVER_NOT_LOADED }
	if _, err := open(lib); !errors.Is(err, ErrUnavailable) {
		t.Errorf("no driver: %v, want ErrUnavailable", err)
	}
	// A panic inside the binding (here: a query the mock lacks) is caught.
	dev := fakeDevice()
	dev.GetTemperatureFunc = nil
	s, err := open(fakeLib(dev))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Read(""); !errors.Is(err, ErrUnavailable) {
		t.Errorf("panicking query: %v, want ErrUnavailable", err)
	}
}

// The real go-nvml: Init on a machine without libnvidia-ml.so.1 returns an
// error code instead of panicking.
func TestRealInitWithoutLibrary(t *testing.T) {
	s, err := Open()
	if err == nil {
		s.Close()
		t.Skip("NVML is present here")
	}
	if !errors.Is(err, ErrUnavailable) {
		t.Fatalf("Open: %v", err)
	}
	t.Log(err)
}
