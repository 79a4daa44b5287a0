package graph

import (
	"bytes"
	"encoding/binary"
	"io"
	"math"
)

// Reading under a memory limit (ReadOptions.Memory): checkMemory refuses a
// file whose size says it will not fit before anything is parsed, and
// guard refuses a stream of unknown size (standard input, a pipe, gzip) as
// soon as the records read so far will not.

// sampleWindows and sampleWindow: a text file's mean line length is
// measured in 5 windows of 64 KiB spread over the file, not only at its
// start, because ids and so lines grow along a file sorted by id (SNAP's
// first lines can be a quarter of the mean length).
const (
	sampleWindows = 5
	sampleWindow  = 64 << 10
)

// checkMemory estimates the peak of reading s from its size (binary
// pairs), its header (a CSR file's counts; .mtx files are checked when
// their size line is read) or sampled line lengths (text), and refuses it
// when that exceeds the limit.
func (s *source) checkMemory() error {
	if s.mem.Bytes == 0 {
		return nil
	}
	switch s.format {
	case "csr":
		return s.checkCSRMemory()
	case "bin32", "bin64":
		if s.size < 0 || s.gz {
			return nil // guard checks as it reads
		}
		pair := int64(8)
		if s.format == "bin64" {
			pair = 16
		}
		return s.mem.Check(s.name, ReadBytes(uint64(s.size/pair)))
	case "text":
		if records, ok := s.sampleRecords(); ok {
			return s.mem.Check(s.name, ReadBytes(records))
		}
	}
	return nil
}

// checkCSRMemory checks the arrays a copied (not mapped) CSR file fills:
// 8 bytes per offset and original id, 4 per adjacency entry.
func (s *source) checkCSRMemory() error {
	head, err := s.r.Peek(32)
	if err != nil {
		return nil // too short: the reader says what is wrong
	}
	n := binary.LittleEndian.Uint64(head[16:])
	arcs := binary.LittleEndian.Uint64(head[24:])
	return s.mem.Check(s.name, satAdd(satMul(satAdd(n, 1), 16), satMul(arcs, 4)))
}

// sampleRecords estimates the lines of a plain text file from its size and
// the mean length of the lines in sampleWindows windows read at spread
// offsets. ok is false when the file cannot be sampled (not a regular
// file, compressed, too few lines seen).
func (s *source) sampleRecords() (records uint64, ok bool) {
	ra, isRA := s.closer.(io.ReaderAt)
	if !isRA || s.gz || s.size <= 0 {
		return 0, false
	}
	if s.size <= sampleWindows*sampleWindow {
		// A small file: its lines cannot outgrow what Build needs for its
		// bytes (a record per 4 bytes at most, "1 2\n").
		return uint64(s.size) / 4, true
	}
	buf := make([]byte, sampleWindow)
	var lines, bytesIn int64
	for i := range int64(sampleWindows) {
		off := (s.size - sampleWindow) * i / (sampleWindows - 1)
		n, err := ra.ReadAt(buf, off)
		if err != nil && err != io.EOF {
			return 0, false
		}
		w := buf[:n]
		// Whole lines only: from after the first newline (unless at the
		// start) to the last one.
		if off > 0 {
			w = w[bytes.IndexByte(w, '\n')+1:]
		}
		w = w[:bytes.LastIndexByte(w, '\n')+1]
		lines += int64(bytes.Count(w, []byte{'\n'}))
		bytesIn += int64(len(w))
	}
	const minLines = 64 // fewer: lines too long to judge from the windows
	if lines < minLines {
		return 0, false
	}
	return uint64(float64(s.size) * float64(lines) / float64(bytesIn)), true
}

// readWhole reads the rest of s into memory (an .npz, whose directory is
// at its end), refusing (a *TooLargeError) a file whose size is over the
// memory limit before reading it, and a stream once it is.
func (s *source) readWhole() ([]byte, error) {
	if s.mem.Bytes == 0 {
		data, err := io.ReadAll(s.r)
		if err != nil {
			return nil, s.ioError(err)
		}
		return data, nil
	}
	if s.size >= 0 && !s.gz {
		if err := s.mem.Check(s.name, uint64(s.size)); err != nil {
			return nil, err
		}
	}
	// One byte past the limit is enough to know it is passed.
	data, err := io.ReadAll(io.LimitReader(s.r, int64(min(s.mem.Bytes, math.MaxInt64-1))+1))
	if err != nil {
		return nil, s.ioError(err)
	}
	if err := s.mem.Check(s.name, uint64(len(data))); err != nil {
		return nil, err
	}
	return data, nil
}

// guard stops reading a stream once the records read so far need more
// memory than the limit; readers call it after each block. It also ends
// the read when ctx is done (the reader's own checks may be a block
// behind).
func (s *source) guard(records uint64) error {
	if err := s.ctx.Err(); err != nil {
		return err
	}
	if need := withHeadroom(ReadBytes(records)); s.mem.Bytes > 0 && records > 0 && need > s.mem.Bytes {
		return &TooLargeError{What: s.name, Need: need, Records: records, Limit: s.mem}
	}
	return nil
}

// maxTextLine bounds the line the text reader buffers. Edge list lines
// hold two ids and a few values, a few hundred bytes at most; 256 MiB
// stops a runaway line (/dev/zero, a binary file read as text) long before
// it takes the memory, and keeps each copy of the growing block short
// enough (a copy cannot be preempted) that an interrupt is served within
// the second.
const maxTextLine = 256 << 20

// maxLineBytes is the longest line the text reader may buffer:
// maxTextLine, or under a small limit a quarter of it (a line is held
// whole, twice while its block grows).
func (s *source) maxLineBytes() int {
	if s.mem.Bytes == 0 || s.mem.Bytes/4 > maxTextLine {
		return maxTextLine
	}
	return int(s.mem.Bytes / 4)
}
