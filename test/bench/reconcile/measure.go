//go:build linux

package main

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"syscall"
	"time"
)

// sample is one timed run.
type sample struct {
	wall    time.Duration
	rssKB   int64
	written int
}

// series is the samples of one scenario, warm-up excluded.
type series struct {
	samples []sample
	failed  string // why a run failed; the figures are not reported then
}

func (s series) median() time.Duration {
	walls := s.walls()
	if len(walls) == 0 {
		return 0
	}
	return walls[len(walls)/2]
}

func (s series) spread() (lo, hi time.Duration) {
	walls := s.walls()
	if len(walls) == 0 {
		return 0, 0
	}
	return walls[0], walls[len(walls)-1]
}

func (s series) walls() []time.Duration {
	var out []time.Duration
	for _, x := range s.samples {
		out = append(out, x.wall)
	}
	slices.Sort(out)
	return out
}

func (s series) peakRSSKB() int64 {
	var peak int64
	for _, x := range s.samples {
		peak = max(peak, x.rssKB)
	}
	return peak
}

// maxWritten is the most files any run wrote: a no-op must show 0 on every run.
func (s series) maxWritten() int {
	most := 0
	for _, x := range s.samples {
		most = max(most, x.written)
	}
	return most
}

// run is one invocation: the command, and the untimed steps around it.
type run struct {
	dir   string // where the command runs and whose files are counted
	argv  []string
	env   []string
	okRC  []int        // exit codes that count as success
	setup func() error // untimed, before
	after func() error // untimed, after
}

// measureSeries runs warmup+runs invocations from next and times all but the
// warm-up ones. next(i) gives the i-th invocation.
func measureSeries(warmup, runs int, next func(i int) run) series {
	var s series
	for i := 0; i < warmup+runs; i++ {
		r := next(i)
		if r.setup != nil {
			if err := r.setup(); err != nil {
				s.failed = "setup: " + err.Error()
				return s
			}
		}
		before := snapshot(r.dir)
		// No run pays for writing back what an earlier one (or the preparation) left
		// dirty: skillsync's syncfs would otherwise flush it all inside its timing.
		syscall.Sync()
		x, err := timeOne(r)
		if err != nil {
			s.failed = err.Error()
			return s
		}
		x.written = changed(before, snapshot(r.dir))
		if r.after != nil {
			if err := r.after(); err != nil {
				s.failed = "after: " + err.Error()
				return s
			}
		}
		if i >= warmup {
			s.samples = append(s.samples, x)
		}
	}
	return s
}

// runner is the runone binary (test/bench/runone) every timed command runs
// through, so that its peak RSS is its own and not at least this process's.
var runner string

func timeOne(r run) (sample, error) {
	report, reportW, err := os.Pipe()
	if err != nil {
		return sample{}, err
	}
	defer report.Close()
	cmd := exec.Command(runner, r.argv...)
	cmd.Dir = r.dir
	cmd.Env = append(os.Environ(), r.env...)
	cmd.ExtraFiles = []*os.File{reportW}
	var out limitedBuffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err = cmd.Run()
	reportW.Close()
	rc := cmd.ProcessState.ExitCode()
	if err != nil && !slices.Contains(r.okRC, rc) {
		return sample{}, &runError{argv: r.argv, rc: rc, output: out.String()}
	}
	line, err := io.ReadAll(report)
	if err != nil {
		return sample{}, err
	}
	var ns, rssKB int64
	if _, err := fmt.Sscan(string(line), &ns, &rssKB); err != nil {
		return sample{}, fmt.Errorf("runone reported %q: %v", line, err)
	}
	return sample{wall: time.Duration(ns), rssKB: rssKB}, nil
}

// fileState is what changes when a file is written: a rename or link gives a new
// inode, an in-place write a new mtime or size.
type fileState struct {
	ino   uint64
	mtime time.Time
	size  int64
}

// snapshot records every file under dir except the inputs people edit.
func snapshot(dir string) map[string]fileState {
	files := map[string]fileState{}
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return nil
		}
		var ino uint64
		if st, ok := info.Sys().(*syscall.Stat_t); ok {
			ino = st.Ino
		}
		files[p] = fileState{ino, info.ModTime(), info.Size()}
		return nil
	})
	return files
}

// changed counts files created, replaced, modified or deleted.
func changed(before, after map[string]fileState) int {
	n := 0
	for p, a := range after {
		if b, ok := before[p]; !ok || b != a {
			n++
		}
	}
	for p := range before {
		if _, ok := after[p]; !ok {
			n++
		}
	}
	return n
}

// timedInTurn is one scenario of a group timed in turn.
type timedInTurn struct {
	scenario, tool, floor string
	next                  func(int) run
	series
}

// measureInTurn runs warmup+runs rounds; in each, one invocation of every
// scenario of ts, in order. The warm-up rounds are not timed.
func measureInTurn(warmup, runs int, ts []timedInTurn) []timedInTurn {
	for i := 0; i < warmup+runs; i++ {
		for k := range ts {
			t := &ts[k]
			if t.failed != "" {
				continue
			}
			x := measureSeries(0, 1, func(int) run { return t.next(i) })
			if x.failed != "" {
				t.failed = x.failed
				continue
			}
			if i >= warmup {
				t.samples = append(t.samples, x.samples...)
			}
		}
	}
	return ts
}

// inTurn times ts in turn, run by run, not one whole series after another: on
// a shared disk whose speed drifts over minutes, a slow patch then slows the
// floors and the runs compared with them alike. label begins each progress line.
func (b *bench) inTurn(n int, label string, ts ...timedInTurn) []result {
	for _, t := range ts {
		fmt.Fprintf(os.Stderr, "  %sin turn, %s: %s\n", label, t.tool, t.scenario)
	}
	var rs []result
	for _, s := range measureInTurn(warmup, b.runs, ts) {
		rs = append(rs, result{n: n, scenario: s.scenario, tool: s.tool, floor: s.floor, series: s.series})
	}
	return rs
}
