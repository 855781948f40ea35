//go:build linux

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/skillsync/skillsync/test/bench/workspacegen"
)

// sourceWorkspaces are every directory the series of one source of one size
// run in, all prepared before the first timed run.
type sourceWorkspaces struct {
	n    int
	kind string // "git" or "OCI", for the report
	// fetch is the floor: the source's own tool fetching the same content
	// into a fresh directory, run i.
	fetch         func(i int) run
	fetchScenario string
	env           []string // for every skillsync run
	cold          []string // per run: a workspace declaring the source, with no lock yet
	caches        []string // per run: an empty cache directory
	// In sync, the cache warm: the source's skills from the lock, and the same
	// skills as the workspace's own skill directories.
	withSource, withoutSource string
	warmCache                 string
}

// prepareSource writes, under dir, the workspaces of a source of n skills
// that config declares, and fills the warm cache.
func (b *bench) prepareSource(w *sourceWorkspaces, dir, config string) {
	template := filepath.Join(dir, "template")
	check(os.MkdirAll(template, 0o755))
	check(os.WriteFile(filepath.Join(template, "skillsync.yaml"), []byte(config), 0o644))
	for i := 0; i < warmup+b.runs; i++ {
		w.cold = append(w.cold, b.copyOf(template, dir, "cold", i))
		w.caches = append(w.caches, filepath.Join(dir, fmt.Sprintf("cache-%d", i)))
	}
	w.warmCache = filepath.Join(dir, "cache-warm")
	w.withSource = b.copyOf(template, dir, "with-source", 0)
	warm := append([]string{"XDG_CACHE_HOME=" + w.warmCache}, w.env...)
	b.mustRun(w.withSource, []string{b.bin, "update", "--yes"}, warm...)
	b.mustRun(w.withSource, []string{b.bin, "reconcile", "--once"}, warm...)
	w.withoutSource = filepath.Join(dir, "without-source")
	check(workspacegen.WriteSkillDirs(w.withoutSource, w.n))
	b.sync(w.withoutSource)
}

// measureSource runs every series of one source of one size.
func (b *bench) measureSource(w sourceWorkspaces) []result {
	rs := b.inTurn(w.n, w.kind+" source, ",
		timedInTurn{scenario: w.fetchScenario, tool: "floor", floor: "write", next: w.fetch},
		timedInTurn{scenario: "update --yes, cache empty: resolve, fetch, read and digest every skill, write the lock", tool: "skillsync", floor: "write", next: func(i int) run {
			return run{dir: w.cold[i], argv: []string{b.bin, "update", "--yes"}, env: append([]string{"XDG_CACHE_HOME=" + w.caches[i]}, w.env...)}
		}},
	)
	once := []string{b.bin, "reconcile", "--once"}
	rs = append(rs, b.inTurn(w.n, w.kind+" source, ",
		timedInTurn{scenario: "no-op reconcile --once, the skills the workspace's own", tool: "skillsync", floor: "read", next: func(int) run {
			return run{dir: w.withoutSource, argv: once}
		}},
		timedInTurn{scenario: "no-op reconcile --once, the skills from the source, cache warm", tool: "skillsync", floor: "read", next: func(int) run {
			return run{dir: w.withSource, argv: once, env: append([]string{"XDG_CACHE_HOME=" + w.warmCache}, w.env...)}
		}},
	)...)
	return rs
}

// renderSource is the section of the report on one kind of source: intro
// says what was measured, floor names the floor's tool for the target, and
// kind the source in the targets' heading.
func renderSource(results []result, heading, kind, intro, floor string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "## %s\n\n%s `update --yes` starts from an empty cache each run, as on a fresh machine; the no-op rows compare a workspace whose skills come from the source "+
		"(lock written, cache warm) with one holding the same skills as its own skill directories.\n\n", heading, intro)
	b.WriteString("| N skills | tool | scenario | median ms | spread ms |\n|---:|---|---|---:|---:|\n")
	for _, r := range results {
		if r.failed != "" {
			fmt.Fprintf(&b, "| %d | %s | %s | failed: %s | |\n", r.n, r.tool, r.scenario, oneLine(r.failed))
			continue
		}
		lo, hi := r.spread()
		fmt.Fprintf(&b, "| %d | %s | %s | %s | %s–%s |\n", r.n, r.tool, r.scenario, ms(r.median()), ms(lo), ms(hi))
	}
	fmt.Fprintf(&b, "\n### Targets (%s source)\n\n", kind)
	seen := map[int]bool{}
	for _, r := range results {
		if seen[r.n] {
			continue
		}
		seen[r.n] = true
		fetch, okF := find(results, r.n, "floor", floor)
		update, okU := find(results, r.n, "skillsync", "update --yes")
		if okF && okU {
			fmt.Fprintf(&b, "- %s at N=%d ≤ 1.5× %s: %s× (%s ms vs %s ms; median of the per-round ratios %s×): %s.\n",
				heading, r.n, fetch.scenario, ratio(update.median(), fetch.median()), ms(update.median()), ms(fetch.median()), pairedRatio(update.series, fetch.series),
				verdict(fetch.median() > 0 && 2*update.median() <= 3*fetch.median()))
		}
		own, okO := find(results, r.n, "skillsync", "no-op reconcile --once, the skills the workspace's own")
		src, okS := find(results, r.n, "skillsync", "no-op reconcile --once, the skills from the source")
		if okO && okS {
			added := src.median() - own.median()
			fmt.Fprintf(&b, "- A warm no-op with the source at N=%d adds ≤ 10 ms to one without: %+.1f ms (%s ms vs %s ms): %s.\n",
				r.n, float64(added.Microseconds())/1000, ms(src.median()), ms(own.median()), verdict(added.Milliseconds() <= 10))
		}
	}
	return b.String()
}

func verdict(ok bool) string {
	if ok {
		return "met"
	}
	return "NOT met"
}
