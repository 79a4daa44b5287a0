package store

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"
)

// WriteJSON writes rows as JSON Lines: one Row per line, with Row's json
// tags. Replay recordings are kept in this form because it diffs line by
// line and needs no SQLite to read.
func WriteJSON(w io.Writer, rows []Row) error {
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false) // specs and reasons stay readable
	for i, r := range rows {
		if err := enc.Encode(r); err != nil { // Encode ends the line
			return fmt.Errorf("store: writing row %d (%s): %w", i+1, r.Plan, err)
		}
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("store: writing rows: %w", err)
	}
	return nil
}

// ReadJSON reads the JSON Lines WriteJSON writes. Blank lines are skipped.
// Each line must be exactly one JSON object with only Row's fields (so a
// typo in a hand-edited recording is caught) and pass Row.Validate. Errors
// read "name:line: ...". A gzip stream (recordings checked in as
// .jsonl.gz, a tenth of the size) is recognised by its magic bytes, and a
// tuning store's file refused with what to do instead.
func ReadJSON(r io.Reader, name string) ([]Row, error) {
	br := bufio.NewReader(r)
	if head, _ := br.Peek(len(sqliteHeader)); string(head) == sqliteHeader {
		return nil, fmt.Errorf("%s: a tuning store, not JSON Lines: export it first (tcgen --store %s store export -o rows.jsonl.gz)", name, name)
	}
	if magic, _ := br.Peek(2); len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		defer zr.Close()
		br = bufio.NewReader(zr)
	}
	var rows []Row
	for line := 1; ; line++ {
		// ReadBytes, not a Scanner: a row's spec may exceed any fixed
		// line limit.
		b, err := br.ReadBytes('\n')
		if err != nil && err != io.EOF {
			return nil, fmt.Errorf("%s:%d: %w", name, line, err)
		}
		if len(bytes.TrimSpace(b)) > 0 {
			row, perr := parseLine(b)
			if perr != nil {
				return nil, fmt.Errorf("%s:%d: %w", name, line, perr)
			}
			rows = append(rows, row)
		}
		if err == io.EOF {
			return rows, nil
		}
	}
}

// parseLine decodes one JSON Lines record.
func parseLine(b []byte) (Row, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var r Row
	if err := dec.Decode(&r); err != nil {
		return Row{}, err
	}
	// A second value on the line is as wrong as a bad one.
	if _, err := dec.Token(); err != io.EOF {
		return Row{}, errors.New("more than one JSON value on the line")
	}
	if err := r.Validate(); err != nil {
		return Row{}, err
	}
	return r, nil
}

// T4 export.
//
// The format is the auto-tuning community's "T4" results schema, agreed at
// the Lorentz Center workshop in 2022 and written by Kernel Tuner (>= 0.4.4,
// store_output_file). Followed here from the schema file
// kernel_tuner/schema/T4/1.0.0/results-schema.json in
// github.com/KernelTuner/kernel_tuner (whose $id is
// github.com/odgaard/TuningSchema, branch T4): an object with
// "schema_version" and "results"; each result needs "configuration",
// "times", "invalidity" and "correctness", and may have "timestamp",
// "objectives" and "measurements" ({name, value, unit}). Times are in
// milliseconds, as Kernel Tuner writes them.

// T4SchemaVersion is the T4 results schema version WriteT4 follows.
const T4SchemaVersion = "1.0.0"

type t4File struct {
	SchemaVersion string     `json:"schema_version"`
	Results       []t4Result `json:"results"`
}

type t4Result struct {
	Timestamp     string          `json:"timestamp,omitempty"`
	Configuration t4Config        `json:"configuration"`
	Times         t4Times         `json:"times"`
	Invalidity    string          `json:"invalidity"`
	Correctness   int             `json:"correctness"`
	Measurements  []t4Measurement `json:"measurements"`
	Objectives    []string        `json:"objectives"`
}

// t4Config is what was tuned: the plan, where it came from, and what it ran
// on. Version is there too, since the same plan under two tcgen versions is
// two measurements.
type t4Config struct {
	Plan      string `json:"plan"`
	Space     string `json:"space"`
	Point     string `json:"point"`
	Graph     string `json:"graph"`
	GraphName string `json:"graph_name"`
	GPU       string `json:"gpu"`
	Version   string `json:"version"`
}

// t4Times uses the schema's property names. Runtimes are the timed passes,
// as Kernel Tuner puts its per-iteration times there.
type t4Times struct {
	CompilationTime float64   `json:"compilation_time"`
	Runtimes        []float64 `json:"runtimes"`
}

// t4Measurement's value is always a number: one revision of the 1.0.0
// schema allows only numbers there (another also strings and arrays), so
// the raw samples go in times.runtimes, valid under both.
type t4Measurement struct {
	Name  string  `json:"name"`
	Value float64 `json:"value"`
	Unit  string  `json:"unit"`
}

// t4Invalidity maps a Status onto the schema's invalidity enum (timeout,
// compile, runtime, correctness, constraints, correct). A plan too large
// for the GPU fails when run, so it is a runtime failure.
func t4Invalidity(s Status) (string, error) {
	switch s {
	case StatusOK:
		return "correct", nil
	case StatusCompile:
		return "compile", nil
	case StatusLaunch, StatusTooLarge:
		return "runtime", nil
	case StatusInvalid:
		return "constraints", nil
	case StatusWrong:
		return "correctness", nil
	}
	return "", fmt.Errorf("unknown status %q", s)
}

// WriteT4 writes rows as one T4 results document. "time" (the median pass,
// ms) is the objective; ok rows also report min, max, kernel and prepare
// times, the triangle count, and the NVML clocks and temperature when
// known. correctness is 1 for a row whose count matched the reference and 0
// otherwise (failed rows were never verified).
func WriteT4(w io.Writer, rows []Row) error {
	out := t4File{SchemaVersion: T4SchemaVersion, Results: make([]t4Result, 0, len(rows))}
	for i, r := range rows {
		inv, err := t4Invalidity(r.Status)
		if err != nil {
			return fmt.Errorf("store: T4 row %d (%s): %w", i+1, r.Plan, err)
		}
		res := t4Result{
			Configuration: t4Config{
				Plan: r.Plan, Space: r.Space, Point: r.Point,
				Graph: r.Graph, GraphName: r.GraphName, GPU: r.GPU, Version: r.Version,
			},
			Times:        t4Times{CompilationTime: r.CompileMs, Runtimes: []float64{}},
			Invalidity:   inv,
			Measurements: []t4Measurement{},
			Objectives:   []string{"time"},
		}
		if !r.Time.IsZero() {
			res.Timestamp = r.Time.UTC().Format(time.RFC3339Nano)
		}
		if r.Status == StatusOK {
			res.Correctness = 1
			if r.Samples != nil {
				res.Times.Runtimes = r.Samples
			}
			m := []t4Measurement{
				{"time", r.MedianMs, "ms"},
				{"time_min", r.MinMs, "ms"},
				{"time_max", r.MaxMs, "ms"},
				{"kernel_time", r.KernelMs, "ms"},
				{"prepare_time", r.PrepareMs, "ms"},
				{"triangles", float64(r.Triangles), ""},
			}
			if r.ClockSMMHz != 0 {
				m = append(m, t4Measurement{"clock_sm", float64(r.ClockSMMHz), "MHz"})
			}
			if r.ClockMemMHz != 0 {
				m = append(m, t4Measurement{"clock_mem", float64(r.ClockMemMHz), "MHz"})
			}
			if r.TempC != 0 {
				m = append(m, t4Measurement{"temperature", float64(r.TempC), "C"})
			}
			res.Measurements = m
		}
		out.Results = append(out.Results, res)
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(out); err != nil {
		return fmt.Errorf("store: writing T4: %w", err)
	}
	return nil
}
