//go:build reliability && linux

package reliability

// Crash safety: SIGKILL `reconcile --once` at random moments while
// it applies a plan of more than 3 000 writes and deletes, then check that every
// SKILL.md is the old bytes, the new bytes or (where one side has no file) absent —
// never partial — and that the next run removes the temp files and converges.
//
// The plan includes whole skills (spec.dir, crash_skilldir_test.go) whose
// supporting files are created, updated (an exec script, a binary asset, a change
// of mode alone), deleted with their folders, and created or removed
// with their whole directory. Their files are checked for old or new bytes and
// mode like any other, and beyond that for being named by the SKILL.md beside them
// at every kill (crashStranded), which is what the apply order is for.
//
// The suite can catch a broken Apply. Verified on a scratch copy of the repository
// (cp -r /work/main /tmp/XXXX; never in the real tree), RELIABILITY_KILLS=60, seed 1:
//
//   - create() in controller/apply/apply.go changed to write the final file directly
//     (r.MkdirAll, then `return r.WriteFile(rel, data, 0o644)` instead of temp + link):
//     2 and 5 kills failed in two runs. A kill between the open(O_CREAT|O_TRUNC) and
//     the write leaves an empty SKILL.md, reported as "neither old nor new (0 bytes;
//     old absent, new 801 bytes)", and the next run exits 3 (a file without a banner
//     is a person's, kept), so it never converges.
//   - update() changed to overwrite in place (r.WriteFile instead of temp + rename):
//     3 kills failed the same way ("0 bytes; old 890 bytes, new 962 bytes").
//
//   - the broken create() again with the default 200 kills: 8 kills failed.
//
// Such a window is a few per cent of the apply phase, so a series of 20 kills (CI)
// may miss it; the 200 of make reliability do not. The test also
// checks its own checkers on a hand-made broken tree (crashCheckerCatches), and
// fails when too few kills land midway through the apply phase, so a series whose
// kills all miss the window cannot pass silently.

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/skillsync/skillsync/internal/banner"
	"github.com/skillsync/skillsync/internal/testkit"
	"github.com/skillsync/skillsync/test/bench/workspacegen"
)

const (
	crashCapabilities = 720 // old registry: 2 160 files across the three targets; 3 051 changes
	crashPerFile      = 10  // capabilities per registry file
)

// crashTargets are the target directories of the three clients.
var crashTargets = []string{".agents", ".claude", ".qwen"}

// crashTree is what the three target directories hold: SKILL.md files (and anything
// else) by workspace-relative slash path, with their permission bits (a whole
// skill's script must keep its execute bit through every kill), and every
// directory below them.
type crashTree struct {
	files map[string][]byte
	modes map[string]fs.FileMode
	dirs  map[string]bool
}

// same says a holds at p exactly what b holds at q: the same bytes and mode.
func (a crashTree) same(p string, b crashTree, q string) bool {
	x, inA := a.files[p]
	y, inB := b.files[q]
	return inA && inB && bytes.Equal(x, y) && a.modes[p] == b.modes[q]
}

// crashCapability is one generated capability; retitled ones differ between the old
// and the new registry.
func crashCapability(i int, retitled bool) string {
	title := fmt.Sprintf("Run crash task %04d", i)
	if retitled {
		title = fmt.Sprintf("Run crash task %04d, revised so the file changes length", i)
	}
	return fmt.Sprintf(`apiVersion: skillsync/v1
kind: Capability
metadata: {name: crash.task%04d}
spec:
  title: %s
  effect: write
  input:
    type: object
    properties: {subject: {type: string, description: What task %04d works on.}}
    required: [subject]
  mcp: {tool: crash_task_%04d}
  skill: {alias: crash-task-%04d, argument: subject}
`, i, title, i, i, i)
}

// crashWriteRegistry replaces ws/registry with the given capabilities, 10 a file.
func crashWriteRegistry(ws string, ids []int, retitled func(int) bool) error {
	dir := filepath.Join(ws, "registry")
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for start := 0; start < len(ids); start += crashPerFile {
		var docs []string
		for _, i := range ids[start:min(start+crashPerFile, len(ids))] {
			docs = append(docs, crashCapability(i, retitled(i)))
		}
		name := filepath.Join(dir, fmt.Sprintf("caps-%04d.yaml", start/crashPerFile))
		if err := os.WriteFile(name, []byte(strings.Join(docs, "---\n")), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// crashOldState is the old registry: n capabilities with even numbers.
func crashOldState(n int) []int {
	ids := make([]int, n)
	for j := range ids {
		ids[j] = 2 * j
	}
	return ids
}

// crashNewState changes the old registry of n capabilities: of the old 2j, one in
// seventeen stays as it is; of the others, even j are removed, each with a new
// capability 2j+1 in its place, and odd j get a new title. That is about as many
// deletes as updates as creates, interleaved in path order, so a kill anywhere in
// the apply phase meets all three; it keeps the registry a run loads (the cost of
// every run) small for the 3 000 file operations.
func crashNewState(n int) (ids []int, retitled func(int) bool) {
	for j := range n {
		switch {
		case j%17 == 16:
			ids = append(ids, 2*j)
		case j%2 == 0:
			ids = append(ids, 2*j+1)
		default:
			ids = append(ids, 2*j)
		}
	}
	return ids, func(i int) bool { j := i / 2; return i%2 == 0 && j%17 != 16 && j%2 == 1 }
}

// crashReadTree reads everything below the target directories of ws.
func crashReadTree(ws string) (crashTree, error) {
	tree := crashTree{files: map[string][]byte{}, modes: map[string]fs.FileMode{}, dirs: map[string]bool{}}
	for _, target := range crashTargets {
		err := filepath.WalkDir(filepath.Join(ws, target), func(p string, d fs.DirEntry, err error) error {
			if errors.Is(err, fs.ErrNotExist) && p == filepath.Join(ws, target) {
				return filepath.SkipDir
			}
			if err != nil {
				return err
			}
			rel, err := filepath.Rel(ws, p)
			if err != nil {
				return err
			}
			rel = filepath.ToSlash(rel)
			switch {
			case d.IsDir():
				tree.dirs[rel] = true
			case d.Type().IsRegular():
				data, err := os.ReadFile(p)
				if err != nil {
					return err
				}
				tree.files[rel] = data
				info, err := d.Info()
				if err != nil {
					return err
				}
				tree.modes[rel] = info.Mode().Perm()
			default:
				tree.files[rel] = []byte("not a regular file: " + d.Type().String())
			}
			return nil
		})
		if err != nil {
			return crashTree{}, err
		}
	}
	return tree, nil
}

// crashRun runs `skillsync --workspace ws reconcile --once` (or another mode) to the end.
func crashRun(bin, ws string, mode ...string) (int, string, time.Duration) {
	if len(mode) == 0 {
		mode = []string{"--once"}
	}
	var out bytes.Buffer
	cmd := exec.Command(bin, append([]string{"--workspace", ws, "reconcile"}, mode...)...)
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	err := cmd.Run()
	took := time.Since(start)
	var exit *exec.ExitError
	switch {
	case err == nil:
		return 0, out.String(), took
	case errors.As(err, &exit):
		return exit.ExitCode(), out.String(), took
	default:
		return -1, err.Error(), took
	}
}

// crashKill says when to SIGKILL a run: after delay counted from the start, or, when
// anchored, from the start of its apply phase. A negative delay never kills.
type crashKill struct {
	delay    time.Duration
	anchored bool
}

// crashResult is how a run went, its moments counted from its start.
type crashResult struct {
	killed bool            // the kill was sent while the run was going
	apply  time.Duration   // when the apply phase began; 0 if not seen
	marks  []time.Duration // when each mark directory first changed; 0 if not seen
	end    time.Duration
	out    string
	err    error // a run that ended on its own but not with exit 0
}

// crashStart runs reconcile --once on ws and kills it as k says. The start of the
// apply phase is the first change to watchDir, the directory of the first file
// Apply writes (Apply writes leftovers, then creates and updates in path order, then
// deletes); its mtime is polled every 500µs. Loading, scanning and planning (twice:
// --once plans again under the lock) take most of a run and vary with the load on
// the machine, so kills are aimed from this moment rather than from the start.
// The mark directories are watched the same way (one that goes counts as
// changed), to time the steps of the apply phase; they do not move the kill.
func crashStart(bin, ws, watchDir string, marks []string, k crashKill) crashResult {
	res := crashResult{marks: make([]time.Duration, len(marks))}
	var buf bytes.Buffer
	before, err := os.Stat(watchDir)
	if err != nil {
		res.err = err
		return res
	}
	markBefore := make([]time.Time, len(marks))
	for i, m := range marks {
		info, err := os.Stat(m)
		if err != nil {
			res.err = err
			return res
		}
		markBefore[i] = info.ModTime()
	}
	cmd := exec.Command(bin, "--workspace", ws, "reconcile", "--once")
	cmd.Stdout, cmd.Stderr = &buf, &buf
	start := time.Now()
	if err := cmd.Start(); err != nil {
		res.err = err
		return res
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var kill <-chan time.Time
	if k.delay >= 0 && !k.anchored {
		timer := time.NewTimer(k.delay)
		defer timer.Stop()
		kill = timer.C
	}
	poll := time.NewTicker(500 * time.Microsecond)
	defer poll.Stop()
	polling := poll.C
	for {
		select {
		case werr := <-done:
			res.end = time.Since(start)
			res.out = buf.String()
			if werr != nil && !res.killed {
				res.err = fmt.Errorf("ended before the kill, with %v", werr)
			}
			return res
		case <-kill:
			// A kill that races the exit counts as a kill; the checks are the same.
			cmd.Process.Signal(syscall.SIGKILL)
			res.killed, kill = true, nil
		case <-polling:
			if res.apply == 0 {
				if info, err := os.Stat(watchDir); err == nil && !info.ModTime().Equal(before.ModTime()) {
					res.apply = time.Since(start)
					if k.delay >= 0 && k.anchored {
						timer := time.NewTimer(k.delay)
						defer timer.Stop()
						kill = timer.C
					}
				}
			}
			unseen := false
			for i, m := range marks {
				if res.marks[i] == 0 && res.apply > 0 {
					if info, err := os.Stat(m); err != nil || !info.ModTime().Equal(markBefore[i]) {
						res.marks[i] = time.Since(start)
					}
				}
				unseen = unseen || res.marks[i] == 0
			}
			if res.apply > 0 && !unseen {
				polling = nil
			}
		}
	}
}

// crashCheckKilled checks the tree left by a killed run against the old and new
// expected trees: every file (a SKILL.md, a whole skill's supporting file) is the
// old or the new one, bytes and mode together (absent only where one side has no
// file), temp files hold a beginning of the new bytes of their directory or,
// swapped out by an update or moved aside by a delete, the whole old bytes of
// one of its files, nothing else is there. It returns the problems and how many
// paths already moved from old to new.
func crashCheckKilled(got, old, want crashTree) (problems []string, moved int) {
	for p, data := range got.files {
		base, dir := path.Base(p), path.Dir(p)
		if banner.IsTempName(base) {
			if !beginsANewFile(want, dir, data) && !isAnOldFile(old, dir, data) {
				problems = append(problems, fmt.Sprintf("%s: temp file (%d bytes) is neither a beginning of a new file nor an old file in %s", p, len(data), dir))
			}
			continue
		}
		o, inOld := old.files[p]
		n, inNew := want.files[p]
		switch {
		case !inOld && !inNew:
			problems = append(problems, fmt.Sprintf("%s: unexpected file (%d bytes)", p, len(data)))
		case got.same(p, old, p):
		case got.same(p, want, p):
		default:
			problems = append(problems, fmt.Sprintf("%s: neither old nor new (%s; old %s, new %s): %q",
				p, crashSize(data, true, got.modes[p]), crashSize(o, inOld, old.modes[p]), crashSize(n, inNew, want.modes[p]), crashHead(data)))
		}
	}
	for p := range old.files {
		_, present := got.files[p]
		_, inNew := want.files[p]
		switch {
		case !present && inNew:
			problems = append(problems, fmt.Sprintf("%s: missing; both the old and the new state have it", p))
		case !present: // deleted
			moved++
		case inNew && !old.same(p, want, p) && got.same(p, want, p): // updated
			moved++
		}
	}
	for p := range want.files {
		if _, inOld := old.files[p]; !inOld {
			if _, present := got.files[p]; present { // created
				moved++
			}
		}
	}
	sort.Strings(problems)
	return problems, moved
}

// beginsANewFile reports whether data is a beginning of a file the new tree has in
// dir: a SKILL.md, or a side file beside it.
func beginsANewFile(want crashTree, dir string, data []byte) bool {
	for p, newBytes := range want.files {
		if path.Dir(p) == dir && bytes.HasPrefix(newBytes, data) {
			return true
		}
	}
	return false
}

// isAnOldFile reports whether data is the whole of a file the old tree has in
// dir.
func isAnOldFile(old crashTree, dir string, data []byte) bool {
	for p, oldBytes := range old.files {
		if path.Dir(p) == dir && bytes.Equal(oldBytes, data) {
			return true
		}
	}
	return false
}

// crashCheckConverged checks the tree after the follow-up run: exactly the new tree,
// no temp file, no directory the new tree does not have.
func crashCheckConverged(got, want crashTree) []string {
	var problems []string
	for p, data := range got.files {
		n, ok := want.files[p]
		switch {
		case banner.IsTempName(path.Base(p)):
			problems = append(problems, fmt.Sprintf("%s: temp file survived the next run", p))
		case !ok:
			problems = append(problems, fmt.Sprintf("%s: not in the new state", p))
		case !got.same(p, want, p):
			problems = append(problems, fmt.Sprintf("%s: differs from the new state (%s, want %s): %q",
				p, crashSize(data, true, got.modes[p]), crashSize(n, true, want.modes[p]), crashHead(data)))
		}
	}
	for p := range want.files {
		if _, ok := got.files[p]; !ok {
			problems = append(problems, fmt.Sprintf("%s: missing after the next run", p))
		}
	}
	for d := range got.dirs {
		if !want.dirs[d] {
			problems = append(problems, fmt.Sprintf("%s/: directory left behind (not in the new state)", d))
		}
	}
	for d := range want.dirs {
		if !got.dirs[d] {
			problems = append(problems, fmt.Sprintf("%s/: directory missing after the next run", d))
		}
	}
	sort.Strings(problems)
	return problems
}

func crashSize(data []byte, present bool, mode fs.FileMode) string {
	if !present {
		return "absent"
	}
	return fmt.Sprintf("%d bytes %04o", len(data), mode)
}

// crashGist keeps what a run said beyond its list of changes made.
func crashGist(out string) string {
	var keep []string
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		switch strings.SplitN(line, " ", 2)[0] {
		case "created", "updated", "deleted", "cleaned":
		default:
			keep = append(keep, "    "+line)
		}
	}
	if len(keep) > 10 {
		keep = append(keep[:10], fmt.Sprintf("    ... and %d more lines", len(keep)-10))
	}
	return strings.Join(keep, "\n")
}

func crashHead(data []byte) []byte {
	if len(data) > 60 {
		return data[:60]
	}
	return data
}

// crashWave is how many kills' copies of the workspace exist at once: about 50 MB
// each once a run has written to it.
const crashWave = 50

// crashCopiesDir picks where the copies go. A SIGKILL loses nothing the kernel has
// already accepted, so what a kill can leave is the same on every file system (the
// rename, link and unlink steps are atomic in the VFS); only the speed differs. On
// an ext4 mounted with discard, making and deleting 200 copies of thousands of
// files takes minutes, so a tmpfs (/dev/shm) is used when it has room;
// RELIABILITY_CRASH_DIR picks another parent (a disk, to watch the timings there).
func crashCopiesDir(t *testing.T, tmpl string, copies int) (dir, where string) {
	t.Helper()
	var size int64
	filepath.WalkDir(tmpl, func(p string, d fs.DirEntry, err error) error {
		if err == nil {
			if info, err := d.Info(); err == nil {
				size += (info.Size()/4096 + 1) * 4096
			}
		}
		return nil
	})
	need := size * int64(copies) * 3 / 2
	parent := os.Getenv("RELIABILITY_CRASH_DIR")
	if parent == "" {
		var st syscall.Statfs_t
		if err := syscall.Statfs("/dev/shm", &st); err == nil && int64(st.Bavail)*int64(st.Bsize) > 2*need {
			parent = "/dev/shm"
		}
	}
	if parent == "" {
		return t.TempDir(), os.TempDir() + " (no tmpfs with room for " + fmt.Sprint(need>>20) + " MiB)"
	}
	dir, err := os.MkdirTemp(parent, "skillsync-crash-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir, parent
}

// crashParallel runs f(0..n-1) on workers goroutines and returns the first error.
func crashParallel(n, workers int, f func(i int) error) error {
	var (
		mu    sync.Mutex
		first error
		wg    sync.WaitGroup
		next  = make(chan int)
	)
	for range workers {
		wg.Go(func() {
			for i := range next {
				if err := f(i); err != nil {
					mu.Lock()
					if first == nil {
						first = err
					}
					mu.Unlock()
				}
			}
		})
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
	return first
}

// crashCheckerCatches makes sure the two checkers flag what a broken Apply leaves:
// a truncated update, an empty create, a vanished file, a foreign file; and after the
// next run a surviving temp file and an empty directory of a deleted skill.
func crashCheckerCatches(t *testing.T, old, want crashTree) {
	t.Helper()
	got := crashClone(old)
	got.dirs = map[string]bool{}
	var updated, created, kept string
	for p, n := range want.files {
		o, inOld := old.files[p]
		switch {
		case !inOld && created == "":
			created = p
		case inOld && !bytes.Equal(o, n) && updated == "":
			updated = p
		case inOld && bytes.Equal(o, n) && kept == "":
			kept = p
		}
	}
	got.files[updated] = want.files[updated][:len(want.files[updated])/2]
	got.files[created] = nil
	delete(got.files, kept)
	got.files[".claude/skills/stray/SKILL.md"] = []byte("---\n")
	if problems, _ := crashCheckKilled(got, old, want); len(problems) != 4 {
		t.Fatalf("self-check: the after-kill checker found %d problems in a tree with 4, so it cannot catch a broken Apply:\n%s", len(problems), strings.Join(problems, "\n"))
	}
	conv := crashClone(want)
	conv.files[path.Join(path.Dir(updated), ".skillsync-0123456789abcdef.tmp")] = nil
	for p := range old.files {
		// A directory the new state has no more: a whole skill's deleted file can be
		// in one the new state keeps.
		if _, inNew := want.files[p]; !inNew && !want.dirs[path.Dir(p)] {
			conv.dirs[path.Dir(p)] = true
			break
		}
	}
	if problems := crashCheckConverged(conv, want); len(problems) != 2 {
		t.Fatalf("self-check: the convergence checker found %d problems in a tree with 2:\n%s", len(problems), strings.Join(problems, "\n"))
	}
}

func TestCrashSafety(t *testing.T) {
	kills := count("RELIABILITY_KILLS", 200)
	sd := seed(1)
	rng := rand.New(rand.NewPCG(uint64(sd), 0x5eed))
	workers := min(max(runtime.NumCPU(), 1), 4)
	t.Logf("crash safety: seed %d (RELIABILITY_SEED), %d kills, %d at a time", sd, kills, workers)
	bin := testkit.Binary(t) // built before the suite's time starts
	began := time.Now()

	// The template: the old registry, reconciled, then the new registry in place.
	tmpl := filepath.Join(t.TempDir(), "template")
	if err := os.MkdirAll(tmpl, 0o755); err != nil {
		t.Fatal(err)
	}
	config := "apiVersion: skillsync/v1\nkind: Workspace\nspec:\n  registry: [registry/*.yaml]\n" +
		"  targets: [claude-code, qwen-code, agents]\n  mcp: {server: crashtest}\n"
	if err := os.WriteFile(filepath.Join(tmpl, "skillsync.yaml"), []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := crashWriteRegistry(tmpl, crashOldState(crashCapabilities), func(int) bool { return false }); err != nil {
		t.Fatal(err)
	}
	if err := crashWriteWholeSkills(tmpl, false); err != nil {
		t.Fatal(err)
	}
	if code, out, _ := crashRun(bin, tmpl); code != 0 {
		t.Fatalf("reconcile of the old registry: exit %d\n%s", code, out)
	}
	old, err := crashReadTree(tmpl)
	if err != nil {
		t.Fatal(err)
	}
	newIDs, retitled := crashNewState(crashCapabilities)
	if err := crashWriteRegistry(tmpl, newIDs, retitled); err != nil {
		t.Fatal(err)
	}
	if err := crashWriteWholeSkills(tmpl, true); err != nil {
		t.Fatal(err)
	}

	// The copies are made in waves, each before the runs it serves and deleted only
	// after them: deleting thousands of files slows the creates that follow on some
	// disks, and all the copies at once would take about 10 GB, more room than a CI
	// machine's tmpfs or disk may have. Copies 0..refs-1 are for uninterrupted runs:
	// the new expected bytes, then the timing of a run; each later wave begins with
	// timed runs of its own, so the kill moments follow the disk after the deletes.
	refs := 3 * workers
	wave := max(min(kills, crashWave), 1)
	dir, where := crashCopiesDir(t, tmpl, refs+wave)
	copyOf := func(i int) string { return filepath.Join(dir, fmt.Sprintf("ws-%04d", i)) }
	timingCopy := func(w, i int) string { return filepath.Join(dir, fmt.Sprintf("timing-%04d-%d", w, i)) }
	var prepared time.Duration
	// Each copy's inputs look saved an hour ago, as they would be on a developer's
	// machine: deletes follow at once instead of after the settle wait (--settle),
	// so the kills land in the writes and deletes this suite is about.
	prepare := func(copies []string) {
		start := time.Now()
		if err := crashParallel(len(copies), workers, func(i int) error {
			if err := os.CopyFS(copies[i], os.DirFS(tmpl)); err != nil {
				return err
			}
			return workspacegen.Backdate(copies[i])
		}); err != nil {
			t.Fatalf("copy the template: %v", err)
		}
		prepared += time.Since(start)
	}
	remove := func(copies []string) {
		crashParallel(len(copies), workers, func(i int) error { return os.RemoveAll(copies[i]) })
	}
	firstCopies := make([]string, refs+wave)
	for i := range firstCopies {
		firstCopies[i] = copyOf(i)
	}
	prepare(firstCopies)

	// The new expected state: uninterrupted runs, which must all agree.
	trees := make([]crashTree, workers)
	if err := crashParallel(workers, workers, func(i int) error {
		if code, out, _ := crashRun(bin, copyOf(i)); code != 0 {
			return fmt.Errorf("uninterrupted reconcile of the new registry: exit %d\n%s", code, out)
		}
		tree, err := crashReadTree(copyOf(i))
		trees[i] = tree
		return err
	}); err != nil {
		t.Fatal(err)
	}
	want := trees[0]
	for i, tree := range trees[1:] {
		if p := crashCheckConverged(tree, want); len(p) > 0 {
			t.Fatalf("two uninterrupted runs disagree (copy %d): %s", i+1, p[0])
		}
	}
	creates, updates, deletes := 0, 0, 0
	// The first file Apply writes: a capability's, in its first step (a whole
	// skill's SKILL.md or new supporting file comes later, see order.go).
	first := ""
	for p := range want.files {
		if _, ok := old.files[p]; !ok {
			creates++
		} else if !old.same(p, want, p) {
			updates++
		} else {
			continue
		}
		if crashWholeDir(p) == "" && (first == "" || p < first) {
			first = p
		}
	}
	for p := range old.files {
		if _, ok := want.files[p]; !ok {
			deletes++
		}
	}
	total := creates + updates + deletes
	if total < 3000 {
		t.Fatalf("the plan has %d file operations; the suite needs at least 3 000", total)
	}
	crashCheckerCatches(t, old, want)
	crashWholeCheckerCatches(t, old, want)
	wholeCreates, wholeUpdates, wholeDeletes := crashWholeCounts(old, want)
	if wholeCreates < 300 || wholeUpdates < 100 || wholeDeletes < 300 {
		t.Fatalf("the plan changes too few supporting files of whole skills (%d creates, %d updates, %d deletes) for kills to land among them",
			wholeCreates, wholeUpdates, wholeDeletes)
	}
	watch := path.Dir(first) // an update's directory, or for a create the nearest that exists
	for _, ok := old.dirs[watch]; !ok && watch != "."; _, ok = old.dirs[watch] {
		watch = path.Dir(watch)
	}
	watchIn := func(ws string) string { return filepath.Join(ws, filepath.FromSlash(watch)) }
	marksIn := func(ws string) []string {
		return []string{filepath.Join(ws, filepath.FromSlash(crashWholeSteps[0])), filepath.Join(ws, filepath.FromSlash(crashWholeSteps[1]))}
	}

	// How long loading and planning take, and then applying, with as many runs at
	// once as the series has: the medians of 2 rounds; and where in the apply phase
	// the whole skills' steps 2 to 4 are, as shares of it (see crashWholeSteps).
	var (
		mu            sync.Mutex
		before, apply []time.Duration
		step2, step4  []float64
	)
	timed := func(ws string) error {
		res := crashStart(bin, ws, watchIn(ws), marksIn(ws), crashKill{delay: -1})
		if res.err != nil || res.apply == 0 || res.marks[0] == 0 || res.marks[1] == 0 {
			return fmt.Errorf("timed run: apply phase seen after %v, the whole skills' steps after %v, error %v\n%s", res.apply, res.marks, res.err, res.out)
		}
		// Every supporting delete is done before any supporting create starts
		// (order.go), so the order can be checked without a kill. Both marks are
		// polled in one pass, the deletes' first, so a tie reads in order.
		if res.marks[1] < res.marks[0] {
			return fmt.Errorf("timed run: the whole skills' supporting creates (step 4, %s) began %v before their supporting deletes (step 2, %s)",
				crashWholeSteps[1], (res.marks[0] - res.marks[1]).Round(time.Microsecond), crashWholeSteps[0])
		}
		mu.Lock()
		before = append(before, res.apply)
		apply = append(apply, res.end-res.apply)
		step2 = append(step2, float64(res.marks[0]-res.apply)/float64(res.end-res.apply))
		step4 = append(step4, float64(res.marks[1]-res.apply)/float64(res.end-res.apply))
		mu.Unlock()
		return nil
	}
	if err := crashParallel(refs-workers, workers, func(i int) error { return timed(copyOf(workers + i)) }); err != nil {
		t.Fatal(err)
	}
	median := func(ds []time.Duration) time.Duration {
		ds = slices.Clone(ds)
		slices.Sort(ds)
		return ds[len(ds)/2]
	}
	pre := median(before)
	medianShare := func(xs []float64) float64 {
		xs = slices.Clone(xs)
		slices.Sort(xs)
		return xs[len(xs)/2]
	}
	// The whole skills' window: from their supporting deletes to their creates,
	// and as long again as the deletes and SKILL.md writes took, for the creates
	// themselves to go through.
	wholeFrom, wholeTo := medianShare(step2), medianShare(step4)
	wholeTo = min(wholeTo+max(wholeTo-wholeFrom, 0.02), 1)
	t.Logf("plan: %d creates, %d updates, %d deletes (%d files in the old state, %d in the new), of which supporting files of "+
		"whole skills %d, %d and %d; the first %d copies prepared in %v in %s; "+
		"a run loads and plans for %v, then applies for %v (the apply phase starts with a change to %s; the whole skills' steps 2 to 4 are %.0f%%-%.0f%% into it)",
		creates, updates, deletes, len(old.files), len(want.files), wholeCreates, wholeUpdates, wholeDeletes, refs+wave, prepared.Round(time.Millisecond), where,
		pre.Round(time.Millisecond), median(apply).Round(time.Millisecond), watch, 100*wholeFrom, 100*wholeTo)

	// Kill moments, as shares of a phase drawn up front, so a seed names the same
	// series whatever the scheduling: one in twenty in the first 5% of the loading
	// (start-up), one in twenty anywhere before the apply phase, one in ten at the
	// very end of it (some after the run is over), one in four in the whole skills'
	// steps 2 to 4 (their windows are a few per cent of the apply phase each, too
	// narrow for a short series to hit by chance), the rest anywhere in the apply
	// phase. A share of the apply phase becomes a delay through the median of the
	// latest apply times seen (runs that end before their kill add theirs), so the
	// kills follow a machine that other work slows down or speeds up.
	type moment struct {
		share    float64
		anchored bool
		whole    bool // share is of the whole skills' window, not of the apply phase
	}
	plan := make([]moment, kills)
	for i := range plan {
		switch r := rng.Float64(); {
		case r < 0.05:
			plan[i] = moment{share: rng.Float64() * 0.05}
		case r < 0.1:
			plan[i] = moment{share: rng.Float64()}
		case r < 0.2:
			plan[i] = moment{share: 0.9 + rng.Float64()*0.2, anchored: true}
		case r < 0.45:
			plan[i] = moment{share: rng.Float64(), anchored: true, whole: true}
		default:
			plan[i] = moment{share: rng.Float64(), anchored: true}
		}
	}
	killAt := func(i int) crashKill {
		if !plan[i].anchored {
			return crashKill{delay: time.Duration(plan[i].share * float64(pre))}
		}
		share := plan[i].share
		if plan[i].whole {
			share = wholeFrom + share*(wholeTo-wholeFrom)
		}
		mu.Lock()
		defer mu.Unlock()
		return crashKill{delay: time.Duration(share * float64(median(apply[max(len(apply)-9, 0):]))), anchored: true}
	}

	var (
		failures  int
		finished  int // runs that ended before their kill
		untouched int // killed before any change
		midway    int // killed with some but not all changes made
		complete  int // killed after every change
		temps     int // temp files found right after a kill
		emptyDirs int // skill directories left empty right after a kill
		// Kills that caught, in whole skills' directories, the moments of
		// crashWholeMoment (each field counts kills, not files).
		whole   crashWholeMoment
		deciles [10]int
		series  time.Duration
		cleanup time.Duration
	)
	killOne := func(i int) error {
		ws := copyOf(refs + i)
		// Each check's problems, a few of each: a broken order strands hundreds of
		// files, and what the next run made of them must still show.
		var (
			problems []string
			found    int
		)
		fail := func(format string, args ...any) {
			problems, found = append(problems, fmt.Sprintf(format, args...)), found+1
		}
		add := func(ps []string) {
			found += len(ps)
			if len(ps) > 4 {
				ps = append(ps[:4:4], fmt.Sprintf("... and %d more like these", len(ps)-4))
			}
			problems = append(problems, ps...)
		}
		kill := killAt(i)
		res := crashStart(bin, ws, watchIn(ws), nil, kill)
		if res.err != nil {
			fail("run: %v\n%s", res.err, crashGist(res.out))
		}
		got, err := crashReadTree(ws)
		if err != nil {
			fail("read the tree after the kill: %v", err)
		}
		afterKill, moved := crashCheckKilled(got, old, want)
		add(afterKill)
		// Old-or-new bytes are not enough for a supporting file: the SKILL.md on
		// disk must name it, or the next run takes it for a person's.
		add(crashStranded(got, old, want))
		moment := crashWholeProgress(got, old, want)
		nTemps, nEmpty := 0, 0
		nonEmpty := map[string]bool{}
		for p := range got.files {
			nonEmpty[path.Dir(p)] = true
			if banner.IsTempName(path.Base(p)) {
				nTemps++
			}
		}
		for d := range got.dirs {
			nonEmpty[path.Dir(d)] = true
		}
		for d := range got.dirs {
			if strings.Count(d, "/") == 2 && !nonEmpty[d] {
				nEmpty++
			}
		}

		code, out, _ := crashRun(bin, ws)
		if code != 0 {
			fail("next run: exit %d, want 0\n%s", code, crashGist(out))
		}
		// Exit 3 means conflicts, but a conflict is what a stranded file turns into,
		// so the lines are checked too, whatever the exit.
		var conflicts []string
		for _, line := range strings.Split(out, "\n") {
			if strings.HasPrefix(line, "conflict ") {
				conflicts = append(conflicts, "next run: "+line)
			}
		}
		add(conflicts)
		conv, err := crashReadTree(ws)
		if err != nil {
			fail("read the tree after the next run: %v", err)
		}
		add(crashCheckConverged(conv, want))
		// Anywhere in the workspace, at any depth: a whole skill's supporting file is
		// staged in its own folder (scripts/, references/more/).
		var leftTemps []string
		filepath.WalkDir(ws, func(p string, d fs.DirEntry, err error) error {
			if err == nil && banner.IsTempName(d.Name()) {
				leftTemps = append(leftTemps, p)
			}
			return nil
		})
		if len(leftTemps) > 0 {
			fail("temp files after the next run: %v", leftTemps)
		}

		mu.Lock()
		defer mu.Unlock()
		if !res.killed {
			finished++
			if res.err == nil && res.apply > 0 {
				apply = append(apply, res.end-res.apply)
			}
		}
		switch {
		case moved == 0:
			untouched++
		case moved < total:
			midway++
		default:
			complete++
		}
		deciles[min(moved*10/total, 9)]++
		temps += nTemps
		emptyDirs += nEmpty
		for _, c := range []struct {
			seen  int
			kills *int
		}{{moment.split, &whole.split}, {moment.ahead, &whole.ahead}, {moment.gone, &whole.gone}, {moment.pending, &whole.pending}, {moment.torn, &whole.torn}} {
			if c.seen > 0 {
				*c.kills++
			}
		}
		if found > 0 {
			failures++
			when := "after the start"
			if kill.anchored {
				when = "into the apply phase"
			}
			t.Errorf("seed %d, kill %d (%v %s, %d of %d changes made): %d problem(s):\n  %s",
				sd, i, kill.delay.Round(time.Microsecond), when, moved, total, found, strings.Join(problems, "\n  "))
		}
		return nil
	}
	for w := 0; w < kills; w += wave {
		n := min(wave, kills-w)
		copies := make([]string, n)
		for j := range copies {
			copies[j] = copyOf(refs + w + j)
		}
		if w > 0 {
			timing := make([]string, workers)
			for j := range timing {
				timing[j] = timingCopy(w, j)
			}
			prepare(append(slices.Clone(copies), timing...))
			if err := crashParallel(workers, workers, func(j int) error { return timed(timing[j]) }); err != nil {
				t.Fatal(err)
			}
			copies = append(copies, timing...)
		}
		start := time.Now()
		crashParallel(n, workers, func(j int) error { return killOne(w + j) })
		series += time.Since(start)
		start = time.Now()
		remove(copies)
		cleanup += time.Since(start)
	}
	t.Logf("kill series: %v in %d waves; %d killed before any change, %d midway, %d after every change, %d ended before the kill; "+
		"right after the kills there were %d temp files and %d empty skill directories",
		series.Round(time.Millisecond), (kills+wave-1)/wave, untouched, midway, complete, finished, temps, emptyDirs)
	t.Logf("share of the plan done at the kill, by tenths: %v; last apply time used %v", deciles, median(apply[max(len(apply)-9, 0):]).Round(time.Millisecond))
	t.Logf("whole skills: %d kills caught a skill directory with some of its changes made and some not; %d with supporting files "+
		"updated ahead of the SKILL.md naming them, %d with supporting files deleted that the SKILL.md still named, %d with a new SKILL.md "+
		"naming files not written yet, %d with a supporting file's temp file cut short", whole.split, whole.ahead, whole.gone, whole.pending, whole.torn)

	start := time.Now()
	remove(firstCopies[:refs])
	cleanup += time.Since(start)
	t.Logf("copies prepared in %v, deleted in %v; whole suite: %v", prepared.Round(time.Millisecond), cleanup.Round(time.Millisecond), time.Since(began).Round(time.Millisecond))

	// A series whose kills all miss the apply phase proves nothing.
	if need := max(kills/3, 1); midway < need {
		t.Errorf("only %d of %d kills landed midway through the apply phase (want at least %d); the kill moments do not cover the run", midway, kills, need)
	}
	// Nor does one whose kills all miss the whole skills' steps (supporting updates
	// and deletes, then the SKILL.md, then supporting creates): those are a few
	// tenths of the apply phase, so a share of the kills must land there.
	if need := kills / 20; whole.split < need {
		t.Errorf("only %d of %d kills caught a whole skill's directory midway (want at least %d); the apply order goes unchecked", whole.split, kills, need)
	}
	report("crash safety (SIGKILL)", kills, failures,
		"every file old or new (bytes and mode), never partial; every supporting file named by its SKILL.md; next run removes temp files and converges")
	if failures > 0 {
		t.Errorf("%d of %d kills failed (seed %d; replay with RELIABILITY_SEED=%d RELIABILITY_KILLS=%d; kill moments depend on timing, so a replay is close, not exact)",
			failures, kills, sd, sd, kills)
	}
}
