//go:build linux

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/skillsync/skillsync/test/bench/workspacegen"
)

// skillDirWorkspaces are every directory the whole-skills series of one size run
// in, all prepared before the first timed run.
type skillDirWorkspaces struct {
	n          int
	template   string   // the sources only: skillsync.yaml and skills/
	master     string   // in sync; the read floor reads its generated tree
	cold, cpTo []string // a copy of template, and an empty directory, per run
	cpSyncTo   []string // an empty directory per run of the durable copy
	atomicTo   []string // an empty directory per run of the atomic copy
	noop, edit string   // copies of master
}

// prepareSkillDirs writes the workspaces of n whole skill directories.
func (b *bench) prepareSkillDirs(n int) skillDirWorkspaces {
	dir := filepath.Join(b.tmp, fmt.Sprintf("skilldirs-%d", n))
	w := skillDirWorkspaces{n: n, template: filepath.Join(dir, "template"), master: filepath.Join(dir, "master")}
	check(workspacegen.WriteSkillDirs(w.template, n))
	check(copyTree(w.template, w.master))
	b.sync(w.master)
	for i := 0; i < warmup+b.runs; i++ {
		w.cold = append(w.cold, b.copyOf(w.template, dir, "cold", i))
		w.cpTo = append(w.cpTo, filepath.Join(dir, fmt.Sprintf("cp-%d", i)))
		check(os.MkdirAll(w.cpTo[i], 0o755))
		w.cpSyncTo = append(w.cpSyncTo, filepath.Join(dir, fmt.Sprintf("cp-sync-%d", i)))
		check(os.MkdirAll(w.cpSyncTo[i], 0o755))
		w.atomicTo = append(w.atomicTo, filepath.Join(dir, fmt.Sprintf("atomic-%d", i)))
		check(os.MkdirAll(w.atomicTo[i], 0o755))
	}
	w.noop = b.copyOf(w.master, dir, "noop", 0)
	w.edit = b.copyOf(w.master, dir, "edit", 0)
	return w
}

// skillTreeCopyArgv copies the skill tree of the sources in template into the
// three target directories of the current directory, as cp -r would do in
// skillsync's place: the baseline of the cold run.
// With durable, the copy ends with sync -f: one syncfs(2), as skillsync syncs what
// it wrote before putting it in place.
func skillTreeCopyArgv(template string, durable bool) []string {
	src := filepath.Join(template, "skills")
	script := "mkdir .claude .qwen .agents"
	for _, t := range generatedTree {
		script += fmt.Sprintf(" && cp -r %s %s/skills", src, t)
	}
	if durable {
		script += " && sync -f ."
	}
	return []string{"sh", "-c", script}
}

// measureSkillDirs runs every whole-skills series of one size.
func (b *bench) measureSkillDirs(w skillDirWorkspaces) []result {
	n, mid := w.n, w.n/2
	self, err := os.Executable()
	check(err)
	once := []string{b.bin, "reconcile", "--once"}
	var rs []result
	add := func(scenario, tool, floor string, next func(int) run) {
		fmt.Fprintf(os.Stderr, "  whole skills, %s: %s\n", tool, scenario)
		rs = append(rs, result{n: n, scenario: scenario, tool: tool, floor: floor, series: measureSeries(warmup, b.runs, next)})
	}
	rs = append(rs, b.inTurn(n, "whole skills, ",
		timedInTurn{scenario: "write floor: cp -r of the skill tree into the 3 target directories", tool: "floor", floor: "write", next: func(i int) run {
			return run{dir: w.cpTo[i], argv: skillTreeCopyArgv(w.template, false)}
		}},
		// Not a floor: how much of the cold run's distance to cp -r the one syncfs is.
		timedInTurn{scenario: "cp -r of the skill tree as above, then sync -f (syncfs)", tool: "baseline", floor: "write", next: func(i int) run {
			return run{dir: w.cpSyncTo[i], argv: skillTreeCopyArgv(w.template, true)}
		}},
		// Not a floor either: what writing each file whole, under a temporary name
		// renamed into place, costs on top of that.
		timedInTurn{scenario: "atomic copy, a few skill directories at a time: each file written beside its place and renamed into it, then syncfs", tool: "baseline", floor: "write", next: func(i int) run {
			return run{dir: w.atomicTo[i], argv: []string{self, atomicCopyFlag, w.template}}
		}},
		timedInTurn{scenario: "cold reconcile --once", tool: "skillsync", floor: "write", next: func(i int) run { return run{dir: w.cold[i], argv: once} }},
	)...)
	rs = append(rs, b.inTurn(n, "whole skills, ",
		timedInTurn{scenario: "read floor: find -exec cat of the generated tree", tool: "floor", floor: "read", next: func(int) run {
			return run{dir: w.master, argv: []string{"sh", "-c", "find " + strings.Join(generatedTree, " ") + " -type f -exec cat {} + >/dev/null"}}
		}},
		timedInTurn{scenario: "no-op reconcile --once", tool: "skillsync", floor: "read", next: func(int) run { return run{dir: w.noop, argv: once} }},
	)...)
	add("one supporting file edited, reconcile --once", "skillsync", "read", func(i int) run {
		return run{dir: w.edit, argv: once, setup: func() error {
			return workspacegen.WriteSkillDirFile(w.edit, mid, workspacegen.SupportingFile, workspacegen.SupportingText(mid, fmt.Sprintf("Edited, run %d", i)))
		}}
	})
	add("one SKILL.md edited, reconcile --once", "skillsync", "read", func(i int) run {
		return run{dir: w.edit, argv: once, setup: func() error {
			return workspacegen.WriteSkillDirFile(w.edit, mid+1, "SKILL.md", workspacegen.SkillMD(mid+1, fmt.Sprintf("Edited, run %d", i)))
		}}
	})
	return rs
}

// renderSkillDirs is the section of the report on whole skill directories.
func renderSkillDirs(results []result, sizes string, runs int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "## Whole skill directories\n\nEach workspace holds N skill directories under skills/, declared by `spec.skillDirs: [skills/*]`, each of %d files "+
		"(SKILL.md and nine supporting files of 0.75–5 KB: six documents, one executable script, one binary file, two of them in a subfolder), "+
		"written whole into the 3 targets: %d·N generated files. `-skilldirs %s`, medians of %d runs after %d warm-up run, as above; the write floor, the two baselines and the cold run are timed in turn, run by run, "+
		"and so are the read floor and the no-op, so the disk's drift slows each alike. "+
		"The write floor is `cp -r` of skills/ into .claude/skills, .qwen/skills and .agents/skills of an empty directory (one `sh -c`, "+
		"3 `cp` processes); the first baseline row adds `sync -f .` (one syncfs, as skillsync syncs its writes) to show how much of the distance to cp -r that is; the second copies the skill directories a few at a time (on as many goroutines as skillsync writes with), writing each file under a temporary name beside its place and renaming it into place, then syncs once: what a tool that never leaves a torn file in a client's directory can reach on this machine; the read floor is `find -exec cat` of the generated tree of a workspace in sync.\n\n",
		workspacegen.SkillDirFiles, 3*workspacegen.SkillDirFiles, sizes, runs, warmup)
	b.WriteString("| N skills | tool | scenario | median ms | spread ms | × floor | peak RSS MB | files written |\n")
	b.WriteString("|---:|---|---|---:|---:|---:|---:|---:|\n")
	for _, r := range results {
		if r.failed != "" {
			fmt.Fprintf(&b, "| %d | %s | %s | failed: %s | | | | |\n", r.n, r.tool, r.scenario, oneLine(r.failed))
			continue
		}
		lo, hi := r.spread()
		fmt.Fprintf(&b, "| %d | %s | %s | %s | %s–%s | %s | %.1f | %d |\n", r.n, r.tool, r.scenario, ms(r.median()), ms(lo), ms(hi),
			ratio(r.median(), floorOf(results, r)), megabytes(r.peakRSSKB()), r.maxWritten())
	}
	b.WriteString("\n### Targets (whole skill directories)\n\n")
	seen := map[int]bool{}
	for _, r := range results {
		if seen[r.n] {
			continue
		}
		seen[r.n] = true
		note := ""
		if r.n != 1000 {
			note = " (the target is set at N=1000)"
		}
		if c, ok := find(results, r.n, "skillsync", "cold"); ok {
			f := floorOf(results, c)
			fl, _ := find(results, r.n, "floor", "write floor")
			fmt.Fprintf(&b, "- Cold at N=%d ≤ 1.5× cp -r of the skill tree into the 3 targets%s: %s× (%s ms vs %s ms; median of the per-round ratios %s×): %s.\n",
				r.n, note, ratio(c.median(), f), ms(c.median()), ms(f), pairedRatio(c.series, fl.series), verdict(f > 0 && 2*c.median() <= 3*f))
			if a, ok := find(results, r.n, "baseline", "atomic copy"); ok {
				fmt.Fprintf(&b, "  (Not a target: the cold run is %s× the atomic copy, %s ms, and cp -r is %s× it; medians of the per-round ratios %s× and %s×.)\n",
					ratio(c.median(), a.median()), ms(a.median()), ratio(fl.median(), a.median()), pairedRatio(c.series, a.series), pairedRatio(fl.series, a.series))
			}
		}
		if o, ok := find(results, r.n, "skillsync", "no-op"); ok {
			f := floorOf(results, o)
			fl, _ := find(results, r.n, "floor", "read floor")
			fmt.Fprintf(&b, "- No-op at N=%d ≤ 1× the read floor%s: %s× (%s ms vs %s ms; median of the per-round ratios %s×): %s.\n",
				r.n, note, ratio(o.median(), f), ms(o.median()), ms(f), pairedRatio(o.series, fl.series), verdict(f > 0 && o.median() <= f))
			fmt.Fprintf(&b, "- No-op at N=%d writes 0 files: %d: %s.\n", r.n, o.maxWritten(), verdict(o.maxWritten() == 0))
		}
	}
	return b.String()
}
