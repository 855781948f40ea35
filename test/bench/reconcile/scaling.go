//go:build linux

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// scaling times the cold run and the write floor at each size, the sizes taken in
// turn run by run rather than one whole series after another: on a shared disk
// whose speed drifts over minutes, a slow patch then slows every size alike, and
// the ratio between sizes stays meaningful. Every workspace of every size is
// prepared before the first timed run.
func (b *bench) scaling(sizes []int, sizesFlag string) string {
	type size struct {
		n            int
		master       string
		cold, copyTo []string
		floor, run   series
	}
	var all []*size
	for _, n := range sizes {
		fmt.Fprintf(os.Stderr, "N=%d: preparing workspaces\n", n)
		s := &size{n: n}
		s.master, s.cold, s.copyTo = b.prepareCold(filepath.Join(b.tmp, fmt.Sprintf("scaling-%d", n)), n)
		all = append(all, s)
	}
	fmt.Fprintln(os.Stderr, "measuring, sizes in turn")
	for i := 0; i < warmup+b.runs; i++ {
		for _, s := range all {
			floor := measureSeries(0, 1, func(int) run { return run{dir: s.copyTo[i], argv: writeFloorArgv(s.master)} })
			cold := measureSeries(0, 1, func(int) run { return run{dir: s.cold[i], argv: []string{b.bin, "reconcile", "--once"}} })
			for _, x := range []series{floor, cold} {
				if x.failed != "" {
					check(fmt.Errorf("scaling at %d capabilities: %s", s.n, x.failed))
				}
			}
			if i >= warmup {
				s.floor.samples = append(s.floor.samples, floor.samples...)
				s.run.samples = append(s.run.samples, cold.samples...)
			}
		}
	}
	var out strings.Builder
	fmt.Fprintf(&out, "# skillsync cold-run scaling\n\nCommand: `go run ./test/bench/reconcile -scaling -sizes %s -runs %d` (`make bench-scaling`). "+
		"Each size's write floor (cp -r of the generated tree) and cold reconcile --once are timed in turn with the other sizes', run by run, "+
		"after 1 warm-up round; medians of %d runs, spread min–max, every run after an untimed sync(2).\n\n", sizesFlag, b.runs, b.runs)
	out.WriteString("| N | write floor ms | spread | cold --once ms | spread | × floor | floor × smallest N | cold × smallest N |\n|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	base := all[0]
	for _, s := range all {
		flo, fhi := s.floor.spread()
		clo, chi := s.run.spread()
		fmt.Fprintf(&out, "| %d | %s | %s–%s | %s | %s–%s | %.2f | %.1f | %.1f |\n", s.n,
			ms(s.floor.median()), ms(flo), ms(fhi), ms(s.run.median()), ms(clo), ms(chi),
			float64(s.run.median())/float64(s.floor.median()),
			float64(s.floor.median())/float64(base.floor.median()), float64(s.run.median())/float64(base.run.median()))
	}
	return out.String()
}
