package sweep

// Nsight Compute (ncu) profiling for tcgen sweep --profile-top: the command
// line that runs one tcgen count under ncu, and the parser of ncu's CSV.
//
// ncu --csv --page raw prints one header row (the launch's identifying
// columns "ID", "Process ID", "Process Name", "Host Name", "Kernel Name",
// "Context", "Stream", "Block Size", "Grid Size", "Device", "CC", then one
// column per metric), one units row (empty strings under the identifying
// columns, then each metric's unit: "nsecond", "byte/second", ...), and then
// one row per profiled kernel launch. Numbers are printed with thousands
// separators ("1,048,576"). ncu's own messages start with "==PROF==",
// "==WARNING==" or "==ERROR==", and the profiled program's output is mixed
// in with them, before and after the CSV.

import (
	"bufio"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"unicode"
)

// The metrics of the comparative study (DESIGN.md), by ncu name.
const (
	// metricRequests: global load requests.
	metricRequests = "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"
	// metricSectorsPerRequest: transactions (32-byte sectors) per global
	// load request.
	metricSectorsPerRequest = "l1tex__average_t_sectors_per_request_pipe_lsu_mem_global_op_ld.ratio"
	// metricThreadsPerInst: active threads per executed warp instruction;
	// divided by 32 it is the warp execution efficiency.
	metricThreadsPerInst = "smsp__thread_inst_executed_per_inst_executed.ratio"
	// metricDRAMRead: achieved DRAM read bandwidth.
	metricDRAMRead = "dram__bytes_read.sum.per_second"
	// metricDuration: the kernel's duration, to weight the per-kernel values.
	metricDuration = "gpu__time_duration.sum"
)

// Metrics lists the ncu metric names collected, in order.
var Metrics = []string{
	metricRequests,
	metricSectorsPerRequest,
	metricThreadsPerInst,
	metricDRAMRead,
	metricDuration,
}

// NCUPath returns the ncu executable on PATH (exec.LookPath("ncu")), or ""
// and a one-line reason.
func NCUPath() (string, string) {
	p, err := exec.LookPath("ncu")
	if err != nil {
		if errors.Is(err, exec.ErrNotFound) {
			return "", "ncu (Nsight Compute) not found on PATH"
		}
		return "", "ncu (Nsight Compute): " + err.Error()
	}
	return p, ""
}

// ProfileCommand returns the argv that runs tcgenArgv under ncu: every
// kernel launch of every process is profiled for Metrics, and printed as
// CSV, one row per launch (the raw page), with metric values in base units.
// GPU clocks are left alone (--clock-control none): ncu's default would
// lock them to base clock, which changes what the study measures and
// touches a GPU other jobs may share.
func ProfileCommand(ncu string, tcgenArgv []string) []string {
	argv := []string{
		ncu,
		"--clock-control", "none",
		"--csv",
		"--page", "raw",
		"--print-units", "base",
		"--metrics", strings.Join(Metrics, ","),
		"--target-processes", "all",
	}
	return append(argv, tcgenArgv...)
}

// ParseCSV reads ncu's CSV output (ProfileCommand's; one row per profiled
// kernel launch) and returns one value per metric for the whole pass, over
// every kernel launch:
//
//	global_load_requests       requests, summed
//	sectors_per_request        total sectors / total requests (0 with no requests)
//	warp_execution_efficiency  duration-weighted mean of active threads per
//	                           warp instruction / 32, a fraction 0..1
//	dram_read_gbps             bytes read from DRAM / total duration, GB/s (1e9 B/s)
//	kernels                    kernel launches profiled
//	duration_ms                total kernel duration, milliseconds
//
// Lines before the CSV header, ncu's ==PROF==/==WARNING==/==ERROR== lines
// and other lines that do not start with a quote are ignored. Units are
// taken from the units row (SI prefixes, "nsecond" to "second", bytes or
// anything per time); values may carry "," thousands separators.
func ParseCSV(r io.Reader) (map[string]float64, error) {
	var (
		header  []string
		col     map[string]int
		units   []string
		notes   []string // ncu's ==WARNING==/==ERROR== lines, for errors
		kernels []kernelRow
		lineNo  int
	)
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 16*1024*1024)
	for sc.Scan() {
		lineNo++
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "==") {
			if strings.HasPrefix(line, "==ERROR==") || strings.HasPrefix(line, "==WARNING==") {
				notes = append(notes, line)
			}
			continue
		}
		if !strings.HasPrefix(line, `"`) {
			continue // the profiled program's output, or a blank line
		}
		fields, err := csvLine(line)
		if header == nil {
			if err != nil || !isHeader(fields) {
				continue // program output that happens to start with a quote
			}
			header = fields
			col = map[string]int{}
			for i, f := range fields {
				if _, dup := col[f]; !dup {
					col[f] = i
				}
			}
			if _, ok := col["Metric Name"]; ok {
				return nil, errors.New("ncu output: one row per metric (the details page); run ncu with --page raw")
			}
			for _, m := range Metrics {
				if _, ok := col[m]; !ok {
					return nil, fmt.Errorf("ncu output: no column %s", m)
				}
			}
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("ncu output: line %d: %v", lineNo, err)
		}
		if len(fields) != len(header) {
			return nil, fmt.Errorf("ncu output: line %d has %d fields, the header %d", lineNo, len(fields), len(header))
		}
		if isHeader(fields) {
			continue // the header again (one per process or result)
		}
		if fields[0] == "" { // the units row
			if units != nil && !slices.Equal(units, fields) {
				return nil, fmt.Errorf("ncu output: line %d: a second, different units row", lineNo)
			}
			units = fields
			continue
		}
		k := kernelRow{id: fields[0], raw: map[string]string{}, unit: map[string]string{}}
		if i, ok := col["Kernel Name"]; ok {
			k.name = fields[i]
		}
		for _, m := range Metrics {
			k.raw[m] = fields[col[m]]
		}
		kernels = append(kernels, k)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("ncu output: %v", err)
	}
	if header == nil {
		return nil, fmt.Errorf("ncu output: no CSV header%s", said(notes))
	}
	if len(kernels) == 0 {
		return nil, fmt.Errorf("ncu output: no kernel rows%s", said(notes))
	}
	if units != nil {
		for _, k := range kernels {
			for _, m := range Metrics {
				k.unit[m] = units[col[m]]
			}
		}
	}
	return aggregate(kernels)
}

// kernelRow is one profiled launch: its metrics' values and units as printed.
type kernelRow struct {
	id, name  string
	raw, unit map[string]string
}

func (k kernelRow) String() string {
	if k.name == "" {
		return "kernel " + k.id
	}
	return fmt.Sprintf("kernel %s (%s)", k.id, k.name)
}

// value returns metric m in base units (seconds for durations, bytes per
// second for bandwidths, counts unscaled).
func (k kernelRow) value(m string) (float64, error) {
	v, err := parseNumber(k.raw[m])
	if err != nil {
		return 0, fmt.Errorf("ncu output: %v: %s: %v", k, m, err)
	}
	u := k.unit[m]
	var scale float64
	switch m {
	case metricDuration:
		if u == "" {
			u = "nsecond" // ncu's base unit for durations
		}
		scale, err = timeScale(u)
	case metricDRAMRead:
		scale, err = rateScale(u)
	default:
		scale, err = unitScale(u)
	}
	if err != nil {
		return 0, fmt.Errorf("ncu output: %s: %v", m, err)
	}
	return v * scale, nil
}

// aggregate combines the kernels' values into the pass's.
func aggregate(kernels []kernelRow) (map[string]float64, error) {
	var (
		requests, sectors float64
		dur, threadsDur   float64 // seconds; threads per inst x seconds
		bytes             float64
		threadsSum        float64 // unweighted, for a pass of zero duration
	)
	for _, k := range kernels {
		d, err := k.value(metricDuration)
		if err != nil {
			return nil, err
		}
		req, err := k.value(metricRequests)
		if err != nil {
			return nil, err
		}
		if d < 0 || req < 0 {
			return nil, fmt.Errorf("ncu output: %v: negative duration or request count", k)
		}
		dur += d
		requests += req
		// A ratio over no requests, or a rate over no time, has no weight,
		// and ncu may print it as "n/a": read it only when it counts.
		if req > 0 {
			spr, err := k.value(metricSectorsPerRequest)
			if err != nil {
				return nil, err
			}
			sectors += spr * req
		}
		tpi, err := k.value(metricThreadsPerInst)
		if err != nil && d > 0 {
			return nil, err
		}
		threadsSum += tpi
		if d > 0 {
			threadsDur += tpi * d
			bw, err := k.value(metricDRAMRead)
			if err != nil {
				return nil, err
			}
			bytes += bw * d
		}
	}
	out := map[string]float64{
		"global_load_requests": requests,
		"kernels":              float64(len(kernels)),
		"duration_ms":          dur * 1e3,
	}
	if requests > 0 {
		out["sectors_per_request"] = sectors / requests
	} else {
		out["sectors_per_request"] = 0
	}
	if dur > 0 {
		out["warp_execution_efficiency"] = threadsDur / dur / 32
		out["dram_read_gbps"] = bytes / dur / 1e9
	} else {
		out["warp_execution_efficiency"] = threadsSum / float64(len(kernels)) / 32
		out["dram_read_gbps"] = 0
	}
	for k, v := range out {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("ncu output: %s is %v", k, v)
		}
	}
	return out, nil
}

// said appends ncu's last warning or error, if any, to an error message.
func said(notes []string) string {
	if len(notes) == 0 {
		return ""
	}
	return " (ncu said: " + notes[len(notes)-1] + ")"
}

// isHeader reports whether a CSV line is the raw page's header.
func isHeader(fields []string) bool {
	if len(fields) > 0 && fields[0] == "ID" {
		return true
	}
	for _, f := range fields {
		if f == metricDuration {
			return true
		}
	}
	return false
}

// csvLine splits one CSV line.
func csvLine(line string) ([]string, error) {
	cr := csv.NewReader(strings.NewReader(line))
	cr.FieldsPerRecord = -1
	return cr.Read()
}

// parseNumber parses a value as ncu prints it: "1,048,576", "12.5",
// "3.2e+05". A comma must separate groups of three digits in the integer
// part: "1.234,5" (a decimal comma) is refused rather than misread.
func parseNumber(s string) (float64, error) {
	s = strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) {
			return -1
		}
		return r
	}, s)
	if s == "" {
		return 0, errors.New("no value")
	}
	if strings.Count(s, ".") > 1 {
		return 0, fmt.Errorf("value %q: several decimal points (locale-formatted?)", s)
	}
	if strings.Contains(s, ",") {
		intPart := s
		if i := strings.IndexAny(s, ".eE"); i >= 0 {
			intPart = s[:i]
			if strings.Contains(s[i:], ",") {
				return 0, fmt.Errorf("value %q: a comma after the decimal point (locale-formatted?)", s)
			}
		}
		intPart = strings.TrimLeft(intPart, "+-")
		groups := strings.Split(intPart, ",")
		if len(groups[0]) == 0 || len(groups[0]) > 3 {
			return 0, fmt.Errorf("value %q: misplaced thousands separator", s)
		}
		for _, g := range groups[1:] {
			if len(g) != 3 {
				return 0, fmt.Errorf("value %q: misplaced thousands separator", s)
			}
		}
		s = strings.ReplaceAll(s, ",", "")
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, fmt.Errorf("value %q is not a number", s)
	}
	return v, nil
}

// timeUnits are ncu's time units (and common short forms), in seconds.
var timeUnits = map[string]float64{
	"nsecond": 1e-9, "ns": 1e-9,
	"usecond": 1e-6, "us": 1e-6, "µs": 1e-6, "μs": 1e-6,
	"msecond": 1e-3, "ms": 1e-3,
	"second": 1, "s": 1, "sec": 1,
}

// timeScale is the factor from time unit u to seconds.
func timeScale(u string) (float64, error) {
	if f, ok := timeUnits[strings.TrimSpace(u)]; ok {
		return f, nil
	}
	return 0, fmt.Errorf("unit %q is not a time", u)
}

// rateScale is the factor from a bytes-per-time unit ("byte/second",
// "Gbyte/second", "GB/s") to bytes per second; "" means byte/second.
func rateScale(u string) (float64, error) {
	u = strings.TrimSpace(u)
	if u == "" {
		return 1, nil
	}
	num, den, ok := strings.Cut(u, "/")
	if !ok {
		return 0, fmt.Errorf("unit %q is not bytes per time", u)
	}
	t, err := timeScale(den)
	if err != nil {
		return 0, fmt.Errorf("unit %q is not bytes per time", u)
	}
	n, err := unitScale(num)
	if err != nil || !isBytes(num) {
		return 0, fmt.Errorf("unit %q is not bytes per time", u)
	}
	return n / t, nil
}

// isBytes reports whether a unit (without a "/") counts bytes.
func isBytes(u string) bool {
	u = strings.TrimSpace(u)
	return strings.HasSuffix(u, "byte") || strings.HasSuffix(u, "B")
}

// prefixes are the scale prefixes ncu's auto units put before a base unit
// ("Kbyte", "Msector", "Grequest"), with binary ones for safety.
var prefixes = []struct {
	p string
	f float64
}{
	{"Ki", 1 << 10}, {"Mi", 1 << 20}, {"Gi", 1 << 30}, {"Ti", 1 << 40},
	{"K", 1e3}, {"k", 1e3}, {"M", 1e6}, {"G", 1e9}, {"T", 1e12}, {"P", 1e15},
}

// unitScale is the factor from unit u to its base unit: 1 for a base unit
// ("request", "sector/request", "byte", "%", ""), 1e3 for "Krequest",
// 1e-9 for "nsecond", 1e9 for "Gbyte/second", and so on.
func unitScale(u string) (float64, error) {
	u = strings.TrimSpace(u)
	if num, den, ok := strings.Cut(u, "/"); ok {
		n, err := unitScale(num)
		if err != nil {
			return 0, err
		}
		d, err := unitScale(den)
		if err != nil {
			return 0, err
		}
		return n / d, nil
	}
	switch {
	case u == "" || u == "%" || u == "B":
		return 1, nil
	case timeUnits[u] != 0:
		return timeUnits[u], nil
	case isLowerWord(u):
		return 1, nil // a base unit: byte, request, sector, inst, thread, cycle, ...
	}
	for _, p := range prefixes {
		rest, ok := strings.CutPrefix(u, p.p)
		if ok && (isLowerWord(rest) || rest == "B") {
			return p.f, nil
		}
	}
	return 0, fmt.Errorf("unit %q not understood", u)
}

// isLowerWord reports whether s is a non-empty run of lower-case letters.
func isLowerWord(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < 'a' || r > 'z' {
			return false
		}
	}
	return true
}
