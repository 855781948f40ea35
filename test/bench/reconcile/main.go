//go:build linux

package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/skillsync/skillsync/internal/testkit/benchkit"
	"github.com/skillsync/skillsync/internal/testkit/ociregistry"
	"github.com/skillsync/skillsync/test/bench/workspacegen"
)

func main() {
	if len(os.Args) == 3 && os.Args[1] == atomicCopyFlag {
		check(atomicCopy(templateCopies(os.Args[2])))
		return
	}
	if len(os.Args) == 3 && os.Args[1] == atomicCopyTreeFlag {
		copies, err := treeCopies(os.Args[2])
		check(err)
		check(atomicCopy(copies))
		return
	}
	sizes := flag.String("sizes", "100,1000,10000", "numbers of capabilities; empty for none")
	skillDirs := flag.String("skilldirs", "1000", "numbers of whole skill directories of 10 files each; empty for none")
	gitSources := flag.String("gitsource", "1000", "numbers of skills in a git source; empty for none")
	ociSources := flag.String("ocisource", "1000", "numbers of skills in an OCI source; empty for none")
	runs := flag.Int("runs", 5, "timed runs per figure, after one warm-up run")
	withPeers := flag.Bool("peers", true, "also run rulesync and ruler (installed with npm into -cache)")
	cache := flag.String("cache", "test/bench/.cache", "npm prefix for the peers; never committed")
	out := flag.String("out", "test/bench/results/latest.md", "markdown copy of the table")
	perFiles := flag.String("per-file", "50,1,1000", "capabilities per registry file: -sizes run at the first, -per-file-sizes at the others")
	perFileSizes := flag.String("per-file-sizes", "1000,10000", "numbers of capabilities run at the second and later -per-file")
	scaling := flag.Bool("scaling", false, "time only cold runs and the write floor, the sizes interleaved; write test/bench/results/scaling.md")
	flag.Parse()

	tmp := benchkit.ScratchDir("skillsync-bench-")
	defer os.RemoveAll(tmp) // deleted only after every timed series
	bin := filepath.Join(tmp, "skillsync")
	check(benchkit.BuildAsReleased(bin))
	runner = filepath.Join(tmp, "runone")
	check(benchkit.Build("", runner, "./test/bench/runone", nil))

	ns := parseSizes(*sizes)
	pfs := parseSizes(*perFiles)
	if len(pfs) == 0 {
		check(fmt.Errorf("-per-file names no number"))
	}
	workspacegen.PerFile = pfs[0]
	if *scaling {
		report := (&bench{bin: bin, tmp: tmp, runs: *runs}).scaling(ns, *sizes)
		fmt.Print(report)
		check(os.WriteFile("test/bench/results/scaling.md", []byte(report), 0o644))
		return
	}
	var p *peers
	if *withPeers && len(ns) > 0 {
		installed, err := installPeers(*cache)
		check(err)
		p = &installed
	}
	b := &bench{bin: bin, tmp: tmp, runs: *runs, peers: p}
	var results []result
	for _, n := range ns {
		fmt.Fprintf(os.Stderr, "N=%d: preparing workspaces\n", n)
		w := b.prepare(n)
		fmt.Fprintf(os.Stderr, "N=%d: measuring\n", n)
		results = append(results, b.measure(w)...)
		// The next size is prepared only after this one's timed series; its
		// workspaces are deleted at the end, so no mass delete slows a series.
	}
	var groups []perFileGroup
	if len(ns) > 0 {
		// The peers read the generated tree, the same whatever the registry's layout,
		// so only skillsync and the floors run again.
		alone := *b
		alone.peers = nil
		for _, pf := range pfs[1:] {
			workspacegen.PerFile = pf
			g := perFileGroup{perFile: pf}
			for _, n := range parseSizes(*perFileSizes) {
				fmt.Fprintf(os.Stderr, "N=%d, %d per registry file: preparing workspaces\n", n, pf)
				w := alone.prepare(n)
				fmt.Fprintf(os.Stderr, "N=%d, %d per registry file: measuring\n", n, pf)
				g.results = append(g.results, alone.measure(w)...)
			}
			groups = append(groups, g)
		}
		workspacegen.PerFile = pfs[0]
	}
	var wholeResults []result
	for _, n := range parseSizes(*skillDirs) {
		// Prepared after the series before it, deleted only at the end, as above.
		fmt.Fprintf(os.Stderr, "whole skills, N=%d: preparing workspaces\n", n)
		w := b.prepareSkillDirs(n)
		fmt.Fprintf(os.Stderr, "whole skills, N=%d: measuring\n", n)
		wholeResults = append(wholeResults, b.measureSkillDirs(w)...)
	}
	var gitResults []result
	for _, n := range parseSizes(*gitSources) {
		fmt.Fprintf(os.Stderr, "git source, N=%d: preparing workspaces\n", n)
		w := b.prepareGitSource(n)
		fmt.Fprintf(os.Stderr, "git source, N=%d: measuring\n", n)
		gitResults = append(gitResults, b.measureSource(w)...)
	}
	var ociResults []result
	if sizes := parseSizes(*ociSources); len(sizes) > 0 {
		reg := ociregistry.Start()
		defer reg.Close()
		oras := installOras(tmp)
		for _, n := range sizes {
			fmt.Fprintf(os.Stderr, "OCI source, N=%d: preparing workspaces\n", n)
			w := b.prepareOCISource(n, reg, oras)
			fmt.Fprintf(os.Stderr, "OCI source, N=%d: measuring\n", n)
			ociResults = append(ociResults, b.measureSource(w)...)
		}
	}
	var report string
	if len(ns) > 0 {
		report = render(results, groups, b.describe(), *sizes, *perFileSizes, *runs)
	} else {
		report = fmt.Sprintf("# skillsync benchmark\n\n%s\nCommand: `go run ./test/bench/reconcile -sizes '' -skilldirs %s -gitsource %s -ocisource %s -runs %d`.\n", machine(), *skillDirs, *gitSources, *ociSources, *runs)
	}
	if len(wholeResults) > 0 {
		report += "\n" + renderSkillDirs(wholeResults, *skillDirs, *runs)
	}
	if len(gitResults) > 0 {
		report += "\n" + renderGitSource(gitResults, *gitSources, *runs)
	}
	if len(ociResults) > 0 {
		report += "\n" + renderOCISource(ociResults, *ociSources, *runs)
	}
	fmt.Print(report)
	check(os.MkdirAll(filepath.Dir(*out), 0o755))
	check(os.WriteFile(*out, []byte(report), 0o644))
}

// parseSizes reads a comma-separated list of sizes; an empty one is none.
func parseSizes(list string) []int {
	var ns []int
	for _, s := range strings.Split(list, ",") {
		if strings.TrimSpace(s) == "" {
			continue
		}
		n, err := strconv.Atoi(strings.TrimSpace(s))
		check(err)
		ns = append(ns, n)
	}
	return ns
}

// check stops the benchmark with err, if there is one, and removes its
// workspaces (benchkit.ScratchDir).
func check(err error) {
	if err != nil {
		benchkit.Check(fmt.Errorf("bench: %w", err))
	}
}
