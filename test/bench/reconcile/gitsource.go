//go:build linux

package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/skillsync/skillsync/test/bench/workspacegen"
)

// gitSourceWorkspaces are every directory the git-source series of one size run
// in, all prepared before the first timed run.
type gitSourceWorkspaces struct {
	n      int
	remote string   // file:// of a repository of n skill directories under skills/, tagged v1
	cold   []string // per run: a workspace declaring the source, with no lock yet
	caches []string // per run: an empty cache directory
	clones []string // per run: where git clone --depth 1 clones to
	// In sync, the cache warm: the source's skills from the lock, and the same
	// skills as the workspace's own skill directories.
	withSource, withoutSource string
	warmCache                 string
}

// gitEnv gives the bench's git commits a fixed author, apart from the
// machine's git configuration.
var gitEnv = []string{"GIT_CONFIG_NOSYSTEM=1", "GIT_AUTHOR_NAME=bench", "GIT_AUTHOR_EMAIL=bench@example.com",
	"GIT_COMMITTER_NAME=bench", "GIT_COMMITTER_EMAIL=bench@example.com"}

func mustGit(dir string, args ...string) {
	cmd := exec.Command("git", args...)
	cmd.Dir, cmd.Env = dir, append(os.Environ(), gitEnv...)
	if out, err := cmd.CombinedOutput(); err != nil {
		check(fmt.Errorf("git %v: %v: %s", args, err, out))
	}
}

// prepareGitSource writes the repository and the workspaces of n skills.
func (b *bench) prepareGitSource(n int) gitSourceWorkspaces {
	dir := filepath.Join(b.tmp, fmt.Sprintf("gitsource-%d", n))
	repo := filepath.Join(dir, "repo")
	check(workspacegen.WriteSkillDirs(repo, n))
	check(os.Remove(filepath.Join(repo, "skillsync.yaml")))
	mustGit(repo, "init", "-q", "-b", "main")
	mustGit(repo, "add", "-A")
	mustGit(repo, "commit", "-q", "-m", "skills")
	mustGit(repo, "tag", "v1")
	w := gitSourceWorkspaces{n: n, remote: "file://" + repo}
	config := "apiVersion: skillsync/v1\nkind: Workspace\nspec:\n  registry: []\n  sources:\n    - name: catalog\n      git: " + w.remote + "\n      ref: v1\n      path: skills\n"
	template := filepath.Join(dir, "template")
	check(os.MkdirAll(template, 0o755))
	check(os.WriteFile(filepath.Join(template, "skillsync.yaml"), []byte(config), 0o644))
	for i := 0; i < warmup+b.runs; i++ {
		w.cold = append(w.cold, b.copyOf(template, dir, "cold", i))
		w.caches = append(w.caches, filepath.Join(dir, fmt.Sprintf("cache-%d", i)))
		w.clones = append(w.clones, filepath.Join(dir, fmt.Sprintf("clone-%d", i)))
	}
	w.warmCache = filepath.Join(dir, "cache-warm")
	w.withSource = b.copyOf(template, dir, "with-source", 0)
	b.mustRun(w.withSource, []string{b.bin, "update", "--yes"}, "XDG_CACHE_HOME="+w.warmCache)
	b.mustRun(w.withSource, []string{b.bin, "reconcile", "--once"}, "XDG_CACHE_HOME="+w.warmCache)
	w.withoutSource = filepath.Join(dir, "without-source")
	check(workspacegen.WriteSkillDirs(w.withoutSource, n))
	b.sync(w.withoutSource)
	return w
}

// measureGitSource runs every git-source series of one size.
func (b *bench) measureGitSource(w gitSourceWorkspaces) []result {
	var rs []result
	inTurn := func(ts ...timedInTurn) {
		for _, t := range ts {
			fmt.Fprintf(os.Stderr, "  git source, in turn, %s: %s\n", t.tool, t.scenario)
		}
		for _, s := range measureInTurn(warmup, b.runs, ts) {
			rs = append(rs, result{n: w.n, scenario: s.scenario, tool: s.tool, floor: s.floor, series: s.series})
		}
	}
	inTurn(
		timedInTurn{scenario: "git clone --depth 1 of the tag", tool: "floor", floor: "write", next: func(i int) run {
			return run{dir: filepath.Dir(w.clones[i]), argv: []string{"git", "clone", "-q", "--depth", "1", "--branch", "v1", w.remote, w.clones[i]}}
		}},
		timedInTurn{scenario: "update --yes, cache empty: resolve, fetch, read and digest every skill, write the lock", tool: "skillsync", floor: "write", next: func(i int) run {
			return run{dir: w.cold[i], argv: []string{b.bin, "update", "--yes"}, env: []string{"XDG_CACHE_HOME=" + w.caches[i]}}
		}},
	)
	once := []string{b.bin, "reconcile", "--once"}
	inTurn(
		timedInTurn{scenario: "no-op reconcile --once, the skills the workspace's own", tool: "skillsync", floor: "read", next: func(int) run {
			return run{dir: w.withoutSource, argv: once}
		}},
		timedInTurn{scenario: "no-op reconcile --once, the skills from the source, cache warm", tool: "skillsync", floor: "read", next: func(int) run {
			return run{dir: w.withSource, argv: once, env: []string{"XDG_CACHE_HOME=" + w.warmCache}}
		}},
	)
	return rs
}

// renderGitSource is the section of the report on git sources.
func renderGitSource(results []result, sizes string, runs int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "## A git source\n\nA repository of N skill directories (those of the whole-skills workspaces) under skills/, tagged v1, "+
		"reached as file://; a workspace declares it as a source (`-gitsource %s`, medians of %d runs after %d warm-up run, the two rows of each group timed in turn). "+
		"`update --yes` starts from an empty cache each run, as on a fresh machine; the no-op rows compare a workspace whose skills come from the source "+
		"(lock written, cache warm) with one holding the same skills as its own skill directories.\n\n", sizes, runs, warmup)
	b.WriteString("| N skills | tool | scenario | median ms | spread ms |\n|---:|---|---|---:|---:|\n")
	for _, r := range results {
		if r.failed != "" {
			fmt.Fprintf(&b, "| %d | %s | %s | failed: %s | |\n", r.n, r.tool, r.scenario, oneLine(r.failed))
			continue
		}
		lo, hi := r.spread()
		fmt.Fprintf(&b, "| %d | %s | %s | %s | %s–%s |\n", r.n, r.tool, r.scenario, ms(r.median()), ms(lo), ms(hi))
	}
	b.WriteString("\n### Targets (git source)\n\n")
	seen := map[int]bool{}
	for _, r := range results {
		if seen[r.n] {
			continue
		}
		seen[r.n] = true
		clone, okC := find(results, r.n, "floor", "git clone")
		update, okU := find(results, r.n, "skillsync", "update --yes")
		if okC && okU {
			fmt.Fprintf(&b, "- A git source at N=%d ≤ 1.5× git clone --depth 1 of the same ref: %s× (%s ms vs %s ms; median of the per-round ratios %s×): %s.\n",
				r.n, ratio(update.median(), clone.median()), ms(update.median()), ms(clone.median()), pairedRatio(update.series, clone.series),
				verdict(clone.median() > 0 && 2*update.median() <= 3*clone.median()))
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
