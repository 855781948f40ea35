//go:build linux

package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/skillsync/skillsync/controller/state"

	"github.com/skillsync/skillsync/test/bench/workspacegen"
)

type bench struct {
	bin   string
	tmp   string
	runs  int
	peers *peers
}

const warmup = 1

// workspaces are every directory the series of one size run in, all prepared
// before the first timed run.
type workspaces struct {
	n                         int
	master                    string // in sync; the floors read and copy its tree
	cold, copyTo, copySynced  []string
	atomicTo                  []string // an empty directory per run of the atomic copy
	coldChecked               string   // a copy of the sources only, which --check reads
	noop, edit, remove, dirty string
	firstNoop                 string // in sync; its index is removed before each run
	rulesyncCold, rulerCold   []string
	rulesyncNoop, rulerNoop   string
}

// perFileGroup is the series run with the capabilities perFile to a registry file,
// beside the main table's.
type perFileGroup struct {
	perFile int
	results []result
}

// result is one row of the table.
type result struct {
	n        int
	scenario string
	tool     string // skillsync, floor, rulesync or ruler
	floor    string // the floor this row is a ratio to: "write" or "read"
	series
}

func (b *bench) prepare(n int) workspaces {
	dir := filepath.Join(b.tmp, fmt.Sprintf("%d-per-%d", n, workspacegen.PerFile))
	w := workspaces{n: n}
	w.master, w.cold, w.copyTo = b.prepareCold(dir, n)
	for i := range w.copyTo {
		w.copySynced = append(w.copySynced, w.copyTo[i]+"-synced")
		check(os.MkdirAll(w.copySynced[i], 0o755))
		w.atomicTo = append(w.atomicTo, w.copyTo[i]+"-atomic")
		check(os.MkdirAll(w.atomicTo[i], 0o755))
	}
	w.coldChecked = b.copyOf(w.cold[0], dir, "cold-checked", 0)
	w.noop = b.copyOf(w.master, dir, "noop", 0)
	w.firstNoop = b.copyOf(w.master, dir, "first-noop", 0)
	w.edit = b.copyOf(w.master, dir, "edit", 0)
	w.remove = b.copyOf(w.master, dir, "remove", 0)
	w.dirty = b.copyOf(w.master, dir, "dirty", 0)
	check(workspacegen.Write(w.dirty, n, map[int]string{n / 2: "Edited, not applied"}, nil))
	if b.peers != nil {
		for _, peer := range []string{"rulesync", "ruler"} {
			src := filepath.Join(dir, peer+"-src")
			check(os.MkdirAll(src, 0o755))
			check(writePeerSources(w.master, src, peer))
			var cold []string
			for i := 0; i < warmup+b.runs; i++ {
				cold = append(cold, b.copyOf(src, dir, peer+"-cold", i))
			}
			noop := b.copyOf(src, dir, peer+"-noop", 0)
			b.mustRun(noop, b.peerArgv(peer))
			if peer == "rulesync" {
				w.rulesyncCold, w.rulesyncNoop = cold, noop
			} else {
				w.rulerCold, w.rulerNoop = cold, noop
			}
		}
	}
	return w
}

// generatedTree is what the floors copy and read: the three target directories.
var generatedTree = []string{".claude", ".qwen", ".agents"}

// writeFloorArgv copies the generated tree of master into the current directory.
func writeFloorArgv(master string) []string {
	argv := []string{"cp", "-r"}
	for _, t := range generatedTree {
		argv = append(argv, filepath.Join(master, t))
	}
	return append(argv, ".")
}

// prepareCold writes under dir a workspace of n capabilities in sync (master), one
// with nothing generated yet for every cold run of a series, and an empty directory
// for every run of the write floor.
func (b *bench) prepareCold(dir string, n int) (master string, cold, copyTo []string) {
	master = filepath.Join(dir, "master")
	template := filepath.Join(dir, "template")
	check(workspacegen.Write(template, n, nil, nil))
	check(copyTree(template, master))
	b.sync(master)
	for i := 0; i < warmup+b.runs; i++ {
		cold = append(cold, b.copyOf(template, dir, "cold", i))
		copyTo = append(copyTo, filepath.Join(dir, fmt.Sprintf("cp-%d", i)))
		check(os.MkdirAll(copyTo[i], 0o755))
	}
	return master, cold, copyTo
}

func (b *bench) copyOf(src, dir, name string, i int) string {
	dst := filepath.Join(dir, fmt.Sprintf("%s-%d", name, i))
	check(copyTree(src, dst))
	return dst
}

func copyTree(src, dst string) error {
	if out, err := exec.Command("cp", "-a", src, dst).CombinedOutput(); err != nil {
		return fmt.Errorf("cp -a %s %s: %v: %s", src, dst, err, out)
	}
	return nil
}

func (b *bench) sync(dir string) { b.mustRun(dir, []string{b.bin, "reconcile", "--once"}) }

// mustRun runs argv in dir, env added to the environment, and stops the bench
// if it fails.
func (b *bench) mustRun(dir string, argv []string, env ...string) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir, cmd.Env = dir, append(os.Environ(), env...)
	if out, err := cmd.CombinedOutput(); err != nil {
		check(fmt.Errorf("%s in %s: %v\n%s", strings.Join(argv, " "), dir, err, out))
	}
}

func (b *bench) peerArgv(peer string) []string {
	if peer == "rulesync" {
		return b.peers.rulesyncArgv()
	}
	return b.peers.rulerArgv()
}

// measure runs every series of one size.
func (b *bench) measure(w workspaces) []result {
	n, mid := w.n, w.n/2
	once := []string{b.bin, "reconcile", "--once"}
	same := func(dir string, argv []string, okRC ...int) func(int) run {
		return func(int) run { return run{dir: dir, argv: argv, okRC: okRC} }
	}
	each := func(dirs []string, argv []string) func(int) run {
		return func(i int) run { return run{dir: dirs[i], argv: argv} }
	}
	var rs []result
	add := func(scenario, tool, floor string, next func(int) run) {
		fmt.Fprintf(os.Stderr, "  %s: %s\n", tool, scenario)
		rs = append(rs, result{n: n, scenario: scenario, tool: tool, floor: floor, series: measureSeries(warmup, b.runs, next)})
	}

	self, err := os.Executable()
	check(err)
	rs = append(rs, b.inTurn(n, "",
		timedInTurn{scenario: "write floor: cp -r of the generated tree", tool: "floor", floor: "write", next: func(i int) run {
			return run{dir: w.copyTo[i], argv: writeFloorArgv(w.master)}
		}},
		// skillsync makes its writes durable and cp -r does not: this row is cp -r
		// followed by one syncfs of the filesystem, what the cold run is also held to.
		timedInTurn{scenario: "cp -r of the generated tree, then sync -f (syncfs)", tool: "baseline", floor: "write", next: func(i int) run {
			return run{dir: w.copySynced[i], argv: []string{"sh", "-c", strings.Join(writeFloorArgv(w.master), " ") + " && sync -f ."}}
		}},
		// Not a floor: what any tool that never leaves a torn file in a client's
		// directory pays for writing each file beside its place and renaming it in.
		timedInTurn{scenario: "atomic copy of the generated tree, a few skill directories at a time: each file written beside its place and renamed into it, then syncfs", tool: "baseline", floor: "write", next: func(i int) run {
			return run{dir: w.atomicTo[i], argv: []string{self, atomicCopyTreeFlag, w.master}}
		}},
		// What a cold run does before its first write, and writes nothing: every
		// input read and checked, every target scanned and planned. It exits 1, the
		// plan not empty.
		timedInTurn{scenario: "reconcile --check of a workspace with nothing generated yet", tool: "skillsync", floor: "write", next: func(int) run {
			return run{dir: w.coldChecked, argv: []string{b.bin, "reconcile", "--check"}, okRC: []int{1}}
		}},
		timedInTurn{scenario: "cold reconcile --once", tool: "skillsync", floor: "write", next: func(i int) run { return run{dir: w.cold[i], argv: once} }},
	)...)
	rs = append(rs, b.inTurn(n, "",
		timedInTurn{scenario: "read floor: find -exec cat of the generated tree", tool: "floor", floor: "read", next: func(int) run {
			return run{dir: w.master, argv: []string{"sh", "-c", "find " + strings.Join(generatedTree, " ") + " -type f -exec cat {} + >/dev/null"}}
		}},
		timedInTurn{scenario: "no-op reconcile --once", tool: "skillsync", floor: "read", next: func(int) run { return run{dir: w.noop, argv: once} }},
		// A fresh clone's second one-shot run: in sync, the record of the sources
		// written by the first, no index yet.
		timedInTurn{scenario: "first no-op reconcile --once (no index yet)", tool: "skillsync", floor: "read", next: func(int) run {
			return run{dir: w.firstNoop, argv: once, setup: func() error {
				err := os.Remove(filepath.Join(w.firstNoop, filepath.FromSlash(state.IndexFile)))
				if errors.Is(err, fs.ErrNotExist) {
					return nil
				}
				return err
			}}
		}},
	)...)
	add("one capability edited, reconcile --once", "skillsync", "read", func(i int) run {
		return run{dir: w.edit, argv: once, setup: func() error {
			return workspacegen.Write(w.edit, n, map[int]string{mid: fmt.Sprintf("Edited title %d", i)}, nil)
		}}
	})
	// The removal is timed as made a while ago: a delete waits until the inputs have
	// been unchanged for --settle, a delay chosen on purpose, not work measured here.
	add("one capability removed, reconcile --once", "skillsync", "read", func(int) run {
		return run{dir: w.remove, argv: once,
			setup: func() error {
				if err := workspacegen.Write(w.remove, n, nil, map[int]bool{mid: true}); err != nil {
					return err
				}
				return workspacegen.Backdate(w.remove)
			},
			after: func() error {
				if err := workspacegen.Write(w.remove, n, nil, nil); err != nil {
					return err
				}
				_, err := timeOne(run{dir: w.remove, argv: once})
				return err
			}}
	})
	add("reconcile --check, in sync", "skillsync", "read", same(w.noop, []string{b.bin, "reconcile", "--check"}))
	add("reconcile --check, one change pending", "skillsync", "read", same(w.dirty, []string{b.bin, "reconcile", "--check"}, 1))
	add("status", "skillsync", "read", same(w.noop, []string{b.bin, "status"}))

	if b.peers != nil {
		add("cold generate", "rulesync", "write", each(w.rulesyncCold, b.peers.rulesyncArgv()))
		add("no-op generate", "rulesync", "read", same(w.rulesyncNoop, b.peers.rulesyncArgv()))
		add("cold apply", "ruler", "write", each(w.rulerCold, b.peers.rulerArgv()))
		add("no-op apply", "ruler", "read", same(w.rulerNoop, b.peers.rulerArgv()))
	}
	return rs
}

// describe says exactly what each peer ran and what it wrote.
func (b *bench) describe() string {
	if b.peers == nil {
		return "Peers not run (-peers=false).\n"
	}
	return fmt.Sprintf(`Peers (installed with npm into the bench cache: %s):

- rulesync: `+"`rulesync %s`"+`, in a directory holding .rulesync/skills/NAME/SKILL.md for each of the
  skills skillsync generates (same name, description and body); it writes
  .claude/skills, .qwen/skills and .agents/skills: the same tree as skillsync.
- ruler: `+"`ruler %s`"+`, with .ruler/skills/NAME/SKILL.md and .ruler/AGENTS.md; it copies
  the skills to .claude/skills and .agents/skills (it has no Qwen Code skills
  directory) and writes AGENTS.md and CLAUDE.md: two thirds of the tree.
`, strings.Join(peerPackages, ", "), strings.Join(b.peers.rulesyncArgv()[2:], " "), strings.Join(b.peers.rulerArgv()[2:], " "))
}
