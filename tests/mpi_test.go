package tests

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/tcgen/tcgen/tests/gputest"
)

// TestCountMPI: under mpirun with 2 and 4 ranks, count --mpi --backend
// cpu counts two shared datasets: rank 0 alone prints one JSON document,
// whose total is the manifest's and the sum of the ranks' counts. Skipped
// without mpirun (failed under CI=true, which installs Open MPI).
func TestCountMPI(t *testing.T) {
	mpirun, err := exec.LookPath("mpirun")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("mpirun: ", err)
		}
		t.Skip("no mpirun: ", err)
	}
	want := map[string]bool{"facebook_combined": true, "ca-GrQc": true}
	ran := 0
	for _, d := range gputest.Manifest(t) {
		if !want[d.Name] {
			continue
		}
		ran++
		for _, np := range []int{2, 4} {
			checkMPICount(t, mpirun, d, np)
		}
	}
	if ran != len(want) {
		t.Errorf("counted %d datasets, want %d", ran, len(want))
	}
	// Text: rank 0 prints the ranks' line and one line per rank.
	k4p := writeFile(t, t.TempDir(), "k4.txt", k4)
	cmd := exec.Command(mpirun, "--allow-run-as-root", "--oversubscribe", "-np", "2",
		tcgenBin, "-q", "--no-cache", "count", k4p, "--mpi", "--backend", "cpu")
	cmd.Env = tcgenEnv
	var out, errs bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errs
	if err := cmd.Run(); err != nil {
		t.Fatalf("k4 in text: %v: %s", err, errs.String())
	}
	txt := out.String()
	for _, re := range []string{`(?m)^triangles +4$`, `(?m)^ranks +2, counts summed with MPI_Allreduce; the slowest rank took [0-9.]+ ms$`,
		`(?m)^rank 0 +[0-9]+ triangles, [0-9.]+ ms$`, `(?m)^rank 1 +[0-9]+ triangles, [0-9.]+ ms$`} {
		if !regexp.MustCompile(re).MatchString(txt) {
			t.Errorf("k4 in text: no line matching %s in\n%s", re, txt)
		}
	}
	if n := len(regexp.MustCompile(`(?m)^triangles `).FindAllString(txt, -1)); n != 1 {
		t.Errorf("k4 in text: want one result (rank 0's), got\n%s", txt)
	}
}

// TestCountMPIErrors: --mpi with --gpus or a local output is refused
// before any work with exit code 2 and one line.
func TestCountMPIErrors(t *testing.T) {
	dir := t.TempDir()
	good := writeFile(t, dir, "k4.txt", k4)
	for _, c := range []struct {
		args []string
		msg  string
	}{
		{[]string{"--gpus", "2"}, "count: --mpi counts on one GPU per rank; --gpus is not implemented with it"},
		{[]string{"--per-vertex", dir + "/v.tsv"}, "count: --mpi counts the total only; --per-vertex is not implemented with it"},
	} {
		code, out, errs := tcgen(t, append([]string{"--no-cache", "-q", "count", good, "--mpi"}, c.args...)...)
		first, _, _ := strings.Cut(errs, "\n")
		if code != exitUsage || out != "" || !strings.HasPrefix(first, "tcgen: "+c.msg) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want %d and %q", c.args, code, out, errs, exitUsage, c.msg)
		}
	}
}

// checkMPICount counts dataset d under mpirun with np ranks and checks
// rank 0's one JSON document against the manifest.
func checkMPICount(t *testing.T, mpirun string, d gputest.Dataset, np int) {
	t.Helper()
	cmd := exec.Command(mpirun, "--allow-run-as-root", "--oversubscribe", "-np", fmt.Sprint(np),
		tcgenBin, "-q", "--cache-dir", t.TempDir(), "count", d.Path, "--mpi", "--backend", "cpu", "--json")
	cmd.Env = tcgenEnv
	var out, errs bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errs
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s on %d ranks: %v: %s", d.Name, np, err, errs.String())
	}
	dec := json.NewDecoder(&out)
	var r struct {
		Triangles uint64 `json:"triangles"`
		MPI       struct {
			Ranks         int      `json:"ranks"`
			RankTriangles []uint64 `json:"rank_triangles"`
		} `json:"mpi"`
	}
	if err := dec.Decode(&r); err != nil {
		t.Fatalf("%s on %d ranks: %v", d.Name, np, err)
	}
	if rest, _ := dec.Token(); rest != nil {
		t.Errorf("%s on %d ranks: more than one JSON document: %v ...", d.Name, np, rest)
	}
	var sum uint64
	for _, x := range r.MPI.RankTriangles {
		sum += x
	}
	if r.Triangles != d.Triangles || r.MPI.Ranks != np || len(r.MPI.RankTriangles) != np || sum != r.Triangles {
		t.Errorf("%s on %d ranks: %d triangles (ranks %d: %v), manifest says %d", d.Name, np, r.Triangles, r.MPI.Ranks, r.MPI.RankTriangles, d.Triangles)
	}
}

// TestCountMPIRankFails: when one rank fails (here: its graph file is
// missing, an MPMD launch), every rank stops within seconds with that
// rank's one-line error and its exit code, and nothing is printed.
func TestCountMPIRankFails(t *testing.T) {
	mpirun, err := exec.LookPath("mpirun")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("mpirun: ", err)
		}
		t.Skip("no mpirun: ", err)
	}
	dir := t.TempDir()
	good := writeFile(t, dir, "k4.txt", k4)
	missing := dir + "/missing.txt"
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	common := []string{"-q", "--no-cache", "count"}
	tail := []string{"--mpi", "--backend", "cpu", "--json"}
	args := []string{"--allow-run-as-root", "--oversubscribe", "-np", "1", tcgenBin}
	args = append(append(append(args, common...), good), tail...)
	args = append(append(append(append(args, ":", "-np", "1", tcgenBin), common...), missing), tail...)
	cmd := exec.CommandContext(ctx, mpirun, args...)
	cmd.Env = tcgenEnv
	var out, errs bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errs
	err = cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("the ranks did not stop within 60 s: %s", errs.String())
	}
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() == 0 || strings.Contains(out.String(), "triangles") ||
		!strings.Contains(errs.String(), "missing.txt") {
		t.Errorf("one rank failing: %v, stdout %q, stderr %q; want a non-zero exit, no result and the error naming missing.txt", err, out.String(), errs.String())
	}
}
