//go:build reliability && linux

package reliability

// The crash suite's plan deletes supporting files, so every create of one waits
// there for its SKILL.md (controller/apply/order.go) and nothing is staged
// ahead. This series kills runs whose plans delete nothing: half the skills are
// new, written whole, and half gain a folder of files they did not have. Both
// stage every file ahead of its SKILL.md, each new folder and new skill
// directory under a temp name renamed into place once its files are staged
// (controller/apply/folders.go).
// After each kill two things must hold: the next run converges to what an
// uninterrupted run writes and leaves no temp file or folder; and, on a copy of
// the killed tree, a run that no longer wants the skills leaves nothing of them:
// no file and no folder a person could take for theirs.
//
// Verified by a deliberate mutation, at 75b9942 plus this suite: staging the
// supporting files ahead under random temp names (writeTemp) instead of the
// names their content gives made kills of this series fail with "temp file
// survived the next run" and "left by a run that wants no skill". The narrowest
// windows (a folder made, nothing in it yet) are microseconds wide and a random
// kill seldom lands in one; controller/staging_test.go stops a run exactly
// there.

import (
	"fmt"
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

const crashFolderSkills = 120

func TestCrashSafetyOfNewFolders(t *testing.T) {
	kills := max(count("RELIABILITY_KILLS", 200)/4, 8)
	sd := seed(1)
	rng := rand.New(rand.NewPCG(uint64(sd), 0xf01d))
	workers := min(max(runtime.NumCPU(), 1), 4)
	bin := testkit.Binary(t)

	// The template: the skills reconciled with no references/ folder, half of
	// them not at all; then all of them whole.
	tmpl := filepath.Join(t.TempDir(), "template")
	if err := workspacegen.WriteSkillDirs(tmpl, crashFolderSkills); err != nil {
		t.Fatal(err)
	}
	aside := filepath.Join(t.TempDir(), "aside")
	moved := map[string]string{}
	for i := range crashFolderSkills {
		from := filepath.Join(tmpl, workspacegen.SkillDirSource(i))
		if i%2 == 0 {
			from = filepath.Join(from, "references")
		}
		to := filepath.Join(aside, fmt.Sprint(i))
		if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(from, to); err != nil {
			t.Fatal(err)
		}
		moved[to] = from
		if i%2 == 0 {
			// The body no longer links the folder it lost.
			md := filepath.Join(filepath.Dir(from), "SKILL.md")
			data, err := os.ReadFile(md)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(md, []byte(strings.ReplaceAll(string(data), "](references/", "](./missing/")), 0o644); err != nil {
				t.Fatal(err)
			}
			moved[md+".orig"] = string(data)
		}
	}
	if code, out, _ := crashRun(bin, tmpl); code != 0 {
		t.Fatalf("reconcile of the old state: exit %d\n%s", code, out)
	}
	for to, from := range moved {
		if md, ok := strings.CutSuffix(to, ".orig"); ok {
			if err := os.WriteFile(md, []byte(from), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.Rename(to, from); err != nil {
			t.Fatal(err)
		}
	}

	// Three uninterrupted runs time a run, on copies made with the kills' ones:
	// the first run after the copies were made can take twice as long as the
	// rest, and the kill moments follow the median.
	const timed = 3
	dir, _ := crashCopiesDir(t, tmpl, 2*kills+timed)
	copyOf := func(i int) string { return filepath.Join(dir, fmt.Sprintf("ws-%04d", i)) }
	timingCopy := func(i int) string { return filepath.Join(dir, fmt.Sprintf("timing-%d", i)) }
	if err := crashParallel(kills+timed, workers, func(i int) error {
		to := copyOf(i)
		if i >= kills {
			to = timingCopy(i - kills)
		}
		if err := os.CopyFS(to, os.DirFS(tmpl)); err != nil {
			return err
		}
		return workspacegen.Backdate(to)
	}); err != nil {
		t.Fatal(err)
	}
	runs := make([]time.Duration, timed)
	for i := range runs {
		code, out, took := crashRun(bin, timingCopy(i))
		if code != 0 {
			t.Fatalf("uninterrupted reconcile: exit %d\n%s", code, out)
		}
		runs[i] = took
	}
	slices.Sort(runs)
	took := runs[timed/2]
	want, err := crashReadTree(timingCopy(0))
	if err != nil {
		t.Fatal(err)
	}
	delays := make([]time.Duration, kills)
	for i := range delays {
		// A run loads and plans for about its first half and stages after
		// that: three kills in four land there, the rest anywhere.
		from := 0.5
		if i%4 == 0 {
			from = 0
		}
		delays[i] = time.Duration((from + rng.Float64()*(1.1-from)) * float64(took))
	}

	var (
		mu       sync.Mutex
		failures int
		caught   int // kills that left something staged: a temp file or folder
		shown    int
	)
	t.Logf("new folders: seed %d, %d kills, one at a time, within %v (the median of %d uninterrupted runs, %v)", sd, kills, took.Round(time.Millisecond), timed, runs)
	// One at a time, as the uninterrupted run was timed: kills of runs slowed by
	// each other would land before their writes.
	crashParallel(kills, 1, func(k int) error {
		ws, other := copyOf(k), copyOf(kills+k)
		problems, staged := crashKillNewFolders(bin, ws, other, delays[k], want)
		mu.Lock()
		defer mu.Unlock()
		if staged {
			caught++
		}
		if len(problems) > 0 {
			failures++
			if shown++; shown <= 3 {
				t.Errorf("kill after %v: %d problem(s):\n  %s", delays[k].Round(time.Millisecond), len(problems), strings.Join(problems[:min(len(problems), 10)], "\n  "))
			}
		}
		return nil
	})
	t.Logf("%d of %d kills left something staged", caught, kills)
	if need := max(kills/5, 1); caught < need {
		t.Errorf("only %d of %d kills left anything staged (want at least %d); the kills miss the writes", caught, kills, need)
	}
	report("crash safety, new folders", kills, failures,
		"a run that deletes nothing, killed while it stages new skill directories and new folders: the next run converges with no temp file or folder; one that no longer wants the skills leaves nothing of them")
	if failures > 0 {
		t.Errorf("%d of %d kills failed (seed %d; replay with RELIABILITY_SEED=%d RELIABILITY_KILLS=%d)", failures, kills, sd, sd, 4*kills)
	}
}

// crashKillNewFolders kills a reconcile of ws after delay, copies what it left
// to other, then checks both ways on from there; staged says the kill left a
// temp file or folder.
func crashKillNewFolders(bin, ws, other string, delay time.Duration, want crashTree) (problems []string, staged bool) {
	cmd := exec.Command(bin, "--workspace", ws, "reconcile", "--once")
	if err := cmd.Start(); err != nil {
		return []string{err.Error()}, false
	}
	time.Sleep(delay)
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	filepath.WalkDir(ws, func(p string, d os.DirEntry, err error) error {
		if err == nil && banner.IsTempName(d.Name()) {
			staged = true
		}
		return nil
	})
	if err := os.CopyFS(other, os.DirFS(ws)); err != nil {
		return []string{err.Error()}, staged
	}

	if code, out, _ := crashRun(bin, ws); code != 0 {
		problems = append(problems, fmt.Sprintf("next run: exit %d: %s", code, out))
	} else if got, err := crashReadTree(ws); err != nil {
		problems = append(problems, err.Error())
	} else {
		problems = append(problems, crashCheckConverged(got, want)...)
		problems = append(problems, crashTempFolders(ws)...)
	}

	config := filepath.Join(other, "skillsync.yaml")
	data, err := os.ReadFile(config)
	if err == nil {
		err = os.WriteFile(config, []byte(strings.Replace(string(data), "  skillDirs: [skills/*]\n", "", 1)), 0o644)
	}
	if err != nil {
		return append(problems, err.Error()), staged
	}
	if code, out, _ := crashRun(bin, other, "--once", "--allow-empty", "--settle", "0s"); code != 0 {
		return append(problems, fmt.Sprintf("run that wants no skill: exit %d: %s", code, out)), staged
	}
	got, err := crashReadTree(other)
	if err != nil {
		return append(problems, err.Error()), staged
	}
	for p := range got.files {
		problems = append(problems, fmt.Sprintf("%s: left by a run that wants no skill", p))
	}
	for d := range got.dirs {
		if !slices.Contains(crashTargets, d) && !slices.Contains(crashTargets, strings.TrimSuffix(d, "/skills")) {
			problems = append(problems, fmt.Sprintf("%s/: folder left by a run that wants no skill", d))
		}
	}
	sort.Strings(problems)
	return problems, staged
}

// crashTempFolders lists the folders of a temp name under ws's targets.
func crashTempFolders(ws string) []string {
	var found []string
	for _, target := range crashTargets {
		filepath.WalkDir(filepath.Join(ws, target), func(p string, d os.DirEntry, err error) error {
			if err == nil && d.IsDir() && banner.IsTempName(d.Name()) {
				rel, _ := filepath.Rel(ws, p)
				found = append(found, path.Clean(filepath.ToSlash(rel))+"/: temp folder survived the next run")
			}
			return nil
		})
	}
	return found
}
