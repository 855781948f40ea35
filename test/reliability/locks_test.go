//go:build reliability && linux

package reliability

// The lock and the reports of TestResourcesAndReports (resources_test.go): a lock
// file that is a link, a lock another process holds, and directories skillsync may
// not change; then the helpers both files use.

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/skillsync/skillsync/controller/state"
	"github.com/skillsync/skillsync/internal/syncbuffer"
	"github.com/skillsync/skillsync/internal/testkit"
	"github.com/skillsync/skillsync/test/bench/workspacegen"
)

// lockLinks plants a link at .skillsync/lock. skillsync writes its pid into the
// lock file, so following the link would overwrite another file; a run with
// something to write and a watcher start must both refuse it as invalid input
// and leave the linked file as it was.
func (s *resSuite) lockLinks(t *testing.T) {
	links := []struct {
		name string
		// plant puts the link at lock and returns the file it leads to.
		plant func(t *testing.T, ws, lock, outside string) string
	}{
		{"a hard link to a file outside", func(t *testing.T, _, lock, outside string) string {
			must(t, os.Link(outside, lock))
			return outside
		}},
		{"a symlink to a file outside", func(t *testing.T, _, lock, outside string) string {
			must(t, os.Symlink(outside, lock))
			return outside
		}},
		{"a symlink to a registry file", func(t *testing.T, ws, lock, _ string) string {
			must(t, os.Symlink("../registry/intents.yaml", lock))
			return filepath.Join(ws, "registry", "intents.yaml")
		}},
	}
	for _, link := range links {
		t.Run(link.name, func(t *testing.T) {
			dir := t.TempDir()
			ws := example(t, dir)
			resConverge(t, ws)
			outside := filepath.Join(dir, "outside.txt")
			must(t, os.WriteFile(outside, []byte("someone else's file\n"), 0o600))
			lock := filepath.Join(ws, state.LockFile)
			if err := os.Remove(lock); err != nil && !os.IsNotExist(err) {
				t.Fatal(err)
			}
			linked := link.plant(t, ws, lock, outside)
			hourAgo := time.Now().Add(-time.Hour)
			must(t, os.Chtimes(linked, hourAgo, hourAgo))
			before := resStat(t, linked)
			// Something to write, so --once goes for the lock.
			missing := filepath.Join(ws, ".claude", "skills", "intent", "SKILL.md")
			must(t, os.Remove(missing))

			refused := func(what string, code int, out string) {
				var f resFindings
				f.expect(code == 2, "exit %d, want 2", code)
				f.expect(strings.Contains(out, state.LockFile) && strings.Contains(out, "remove it"),
					"does not name %s and say to remove it", state.LockFile)
				_, err := os.Lstat(missing)
				f.expect(os.IsNotExist(err), "wrote .claude/skills/intent/SKILL.md")
				f.expect(resStat(t, linked) == before, "the linked file %s changed (bytes, mode or mtime)", linked)
				if len(f) > 0 {
					f = append(f, "output:\n"+out)
				}
				s.done(t, fmt.Sprintf(".skillsync/lock %s, %s", link.name, what), f)
			}
			code, out := runOnce(t, ws)
			refused("reconcile --once", code, out)
			code, out = resWatcherStart(t, ws)
			refused("a watcher start", code, out)
		})
	}
}

// resWatcherStart starts a watcher on ws and returns its exit code and output once
// it has exited. One that gets as far as answering /healthz has not refused to
// start; it is stopped, and its code is -1.
func resWatcherStart(t *testing.T, ws string) (int, string) {
	addr := testkit.FreeAddr(t)
	w := resStartWatcher(t, exec.Command(testkit.Binary(t), "--workspace", ws, "reconcile", "--health-addr", addr))
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		select {
		case <-w.exited:
			return w.cmd.ProcessState.ExitCode(), w.logs.String()
		default:
		}
		if resp, err := http.Get("http://" + addr + "/healthz"); err == nil {
			resp.Body.Close()
			break
		}
	}
	w.stop()
	return -1, w.logs.String() + "\n(it started watching)"
}

// lockHeld holds the lock the way a watcher does (flock, its pid in the file) while
// --once has creates, updates and deletes to make. The run must fail naming the
// holder, report every change as not done, claim none, and change nothing.
func (s *resSuite) lockHeld(t *testing.T) {
	ws := example(t, t.TempDir())
	resConverge(t, ws)
	// One create, three updates, three deletes.
	must(t, os.Remove(filepath.Join(ws, ".qwen", "skills", "note", "SKILL.md")))
	registry := filepath.Join(ws, "registry", "intents.yaml")
	data, err := os.ReadFile(registry)
	must(t, err)
	must(t, os.WriteFile(registry, []byte(replaceLine(string(data), "  title: Search intents", "  title: Search intents, held back")), 0o644))
	resDropCapability(t, ws, "intents.withdraw")
	must(t, workspacegen.Backdate(ws))

	lock, err := os.OpenFile(filepath.Join(ws, state.LockFile), os.O_RDWR, 0)
	must(t, err)
	defer lock.Close()
	must(t, syscall.Flock(int(lock.Fd()), syscall.LOCK_EX|syscall.LOCK_NB))
	_, err = lock.WriteAt([]byte(fmt.Sprintf("%d\n", os.Getpid())), 0)
	must(t, err)
	holder := fmt.Sprintf("pid %d", os.Getpid())
	before, err := ownSnapshot(ws)
	must(t, err)

	var f resFindings
	code, out := runOnce(t, ws, "--lock-timeout", "100ms")
	f.expect(code == 4, "exit %d, want 4", code)
	f.expect(strings.Contains(out, holder), "does not name the holder (%s)", holder)
	claimed := resLines(out, "updated", "created", "deleted", "done:")
	f.expect(len(claimed) == 0, "claims changes it did not make:\n    %s", strings.Join(claimed, "\n    "))
	planned := resLines(out, "update", "create", "delete")
	f.expect(len(planned) == 8, "lists %d changes, want 8 (1 create, 3 updates, 4 deletes: 3 SKILL.md and a Codex policy file)", len(planned))
	for _, line := range planned {
		f.expect(strings.Contains(line, "not done"), "does not say the change was not done: %s", line)
	}
	f = append(f, resUnchanged(ws, before)...)
	if len(f) > 0 {
		f = append(f, "output:\n"+out)
	}
	s.done(t, "reconcile --once while another process holds the lock", f)

	f = nil
	cmd := exec.Command(testkit.Binary(t), "--workspace", ws, "reconcile", "--once", "--lock-timeout", "100ms", "-o", "json")
	stdout, err := cmd.Output()
	if _, exited := err.(*exec.ExitError); err != nil && !exited {
		t.Fatal(err)
	}
	var report struct {
		Kind     string `json:"kind"`
		ExitCode int    `json:"exitCode"`
		Changes  []struct {
			Path   string `json:"path"`
			Action string `json:"action"`
			Done   bool   `json:"done"`
		} `json:"changes"`
		Error string `json:"error"`
	}
	f.expect(json.Unmarshal(stdout, &report) == nil, "stdout is not one JSON report")
	f.expect(report.Kind == "ReconcileResult", "kind %q, want ReconcileResult", report.Kind)
	f.expect(cmd.ProcessState.ExitCode() == 4 && report.ExitCode == 4, "exit %d, exitCode %d, want 4", cmd.ProcessState.ExitCode(), report.ExitCode)
	f.expect(strings.Contains(report.Error, holder), "error %q does not name the holder (%s)", report.Error, holder)
	f.expect(len(report.Changes) == 8, "reports %d changes, want 8", len(report.Changes))
	for _, c := range report.Changes {
		f.expect(!c.Done, "%s %s: \"done\": true", c.Action, c.Path)
	}
	f = append(f, resUnchanged(ws, before)...)
	if len(f) > 0 {
		f = append(f, "stdout:\n"+string(stdout))
	}
	s.done(t, "reconcile --once -o json while another process holds the lock", f)
}

// resUnchanged lists what differs in ws from the snapshot before.
func resUnchanged(ws string, before ownTree) resFindings {
	after, err := ownSnapshot(ws)
	if err != nil {
		return resFindings{"snapshot: " + err.Error()}
	}
	var f resFindings
	for _, c := range ownChanges(before, after) {
		f = append(f, "changed on disk: "+c)
	}
	return f
}

// readOnlyDirs deletes a removed capability's files where skillsync may not change
// a directory. Where only the skill directory's parent is immutable the SKILL.md
// goes and its empty directory stays: the delete is done, and says so. Later runs
// find that empty directory again; leaving it is no failure (exit 0), but no
// removal either, so no line may say it was cleaned. Where the skill directory
// itself is immutable the delete fails, and says so.
func (s *resSuite) readOnlyDirs(t *testing.T) {
	const orphan = ".claude/skills/withdraw-intent"
	pruning := func(t *testing.T) string {
		ws := example(t, t.TempDir())
		resConverge(t, ws)
		resDropCapability(t, ws, "intents.withdraw")
		must(t, workspacegen.Backdate(ws))
		return ws
	}
	gone := func(ws string) resFindings {
		var f resFindings
		for _, target := range []string{".claude", ".qwen", ".agents"} {
			_, err := os.Lstat(filepath.Join(ws, target, "skills", "withdraw-intent", "SKILL.md"))
			f.expect(os.IsNotExist(err), "%s/skills/withdraw-intent/SKILL.md is still there", target)
		}
		return f
	}

	t.Run("immutable target directory", func(t *testing.T) {
		ws := pruning(t)
		resImmutable(t, filepath.Join(ws, ".claude", "skills"))
		var f resFindings
		code, out := runOnce(t, ws)
		f.expect(code == 0, "exit %d, want 0", code)
		deleted := resLines(out, "deleted")
		f.expect(strings.Contains(strings.Join(deleted, "\n"), orphan+"/SKILL.md") && strings.Contains(out, "left in place"),
			"does not report %s/SKILL.md deleted, its empty directory left in place", orphan)
		f.expect(len(resLines(out, "failed")) == 0, "reports a failure")
		f = append(f, gone(ws)...)
		f = append(f, resClaimsHold(ws, out)...)
		if len(f) > 0 {
			f = append(f, "output:\n"+out)
		}
		s.done(t, "delete under an immutable .claude/skills", f)

		for i := range 2 {
			f = nil
			code, out := runOnce(t, ws)
			f.expect(code == 0 && len(resLines(out, "failed")) == 0, "exit %d, want 0 and no failure", code)
			f = append(f, resClaimsHold(ws, out)...)
			if len(f) > 0 {
				f = append(f, "output:\n"+out)
			}
			s.done(t, fmt.Sprintf("run %d after the delete under an immutable .claude/skills", i+2), f)
		}
		f = nil
		code, out = runOnce(t, ws, "--check")
		f.expect(code == 0, "--check: exit %d, want 0\n%s", code, out)
		s.done(t, "--check after the delete under an immutable .claude/skills", f)
	})

	t.Run("immutable skill directory", func(t *testing.T) {
		ws := pruning(t)
		resImmutable(t, filepath.Join(ws, filepath.FromSlash(orphan)))
		var f resFindings
		code, out := runOnce(t, ws)
		f.expect(code == 4, "exit %d, want 4", code)
		failed := resLines(out, "failed")
		f.expect(len(failed) == 1 && strings.Contains(failed[0], orphan+"/SKILL.md"), "does not report the delete of %s/SKILL.md failed", orphan)
		deleted := resLines(out, "deleted")
		f.expect(len(deleted) == 3 && !strings.Contains(strings.Join(deleted, "\n"), orphan),
			"reports deleted:\n    %s\n  want the .qwen and .agents files only (SKILL.md, and the Codex policy file in .agents)", strings.Join(deleted, "\n    "))
		f.expect(!strings.Contains(out, "deleted 4"), "claims 4 deletes")
		f = append(f, resClaimsHold(ws, out)...)
		_, err := os.Lstat(filepath.Join(ws, filepath.FromSlash(orphan), "SKILL.md"))
		f.expect(err == nil, "%s/SKILL.md is gone: %v", orphan, err)
		if len(f) > 0 {
			f = append(f, "output:\n"+out)
		}
		s.done(t, "delete in an immutable skill directory", f)
	})
}

// resClaimsHold checks the removals out reports as done: each path it names as
// deleted or cleaned must be gone.
func resClaimsHold(ws, out string) resFindings {
	var f resFindings
	for _, line := range resLines(out, "deleted", "cleaned") {
		fields := strings.Fields(line)
		if len(fields) < 2 {
			continue
		}
		_, err := os.Lstat(filepath.Join(ws, filepath.FromSlash(fields[1])))
		f.expect(os.IsNotExist(err), "claims a removal it did not make, %s is still there: %s", fields[1], line)
	}
	return f
}

// resImmutable makes dir immutable (chattr +i) until the end of the test; where
// chattr cannot, the test is skipped.
func resImmutable(t *testing.T, dir string) {
	t.Helper()
	if out, err := exec.Command("chattr", "+i", dir).CombinedOutput(); err != nil {
		t.Skipf("chattr +i unavailable here, skipped: %v %s", err, out)
	}
	t.Cleanup(func() { exec.Command("chattr", "-i", dir).Run() })
}

// ---------------------------------------------------------------------------
// Helpers of both files: watchers, /readyz, files and output

// resWatcher is a running skillsync process and what it logged.
type resWatcher struct {
	cmd    *exec.Cmd
	logs   *syncbuffer.Buffer
	exited chan struct{}
	err    error // how it ended, once exited is closed
}

// resStartWatcher starts cmd; it is stopped at the end of the test at the latest.
func resStartWatcher(t *testing.T, cmd *exec.Cmd) *resWatcher {
	t.Helper()
	w := &resWatcher{cmd: cmd, logs: &syncbuffer.Buffer{}, exited: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = w.logs, w.logs
	must(t, cmd.Start())
	go func() {
		w.err = cmd.Wait()
		close(w.exited)
	}()
	t.Cleanup(func() { w.stop() })
	return w
}

// stop sends SIGTERM and waits for the process to exit, killing it if it has not
// 30 s later, and returns how it ended.
func (w *resWatcher) stop() error {
	select {
	case <-w.exited:
		return w.err
	default:
	}
	w.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-w.exited:
		return w.err
	case <-time.After(30 * time.Second):
		w.cmd.Process.Kill()
		<-w.exited
		return fmt.Errorf("still running 30 s after SIGTERM")
	}
}

// resReadiness is what /readyz answers.
type resReadiness struct {
	Ready   bool `json:"ready"`
	LastRun *struct {
		Time   time.Time `json:"time"`
		Result string    `json:"result"`
	} `json:"lastRun"`
	Watch *struct {
		Inotify int `json:"inotify"`
		Polled  int `json:"polled"`
	} `json:"watch"`
}

// resAwaitReadyz waits, as awaitRun does, for an answer of /readyz that satisfies
// until; it returns the last answer, status and body, and whether one did.
func resAwaitReadyz(addr string, until func(status int, r resReadiness) bool) (string, bool) {
	status, body, ok := awaitRun(addr, time.Time{}, func(status int, body string) bool {
		var r resReadiness
		return json.Unmarshal([]byte(body), &r) == nil && until(status, r)
	})
	return fmt.Sprintf("%d %s", status, strings.TrimSpace(body)), ok
}

// resConvergedSince is satisfied by a converged run that started after since,
// once and holds.
func resConvergedSince(since time.Time, and func() bool) func(int, resReadiness) bool {
	return func(status int, r resReadiness) bool {
		return status == http.StatusOK && r.LastRun != nil && r.LastRun.Result == "converged" && r.LastRun.Time.After(since) && and()
	}
}

// resPolled is the number of polled directories an answer of /readyz reports.
func resPolled(answer string) int {
	_, body, _ := strings.Cut(answer, " ")
	var r resReadiness
	if json.Unmarshal([]byte(body), &r) != nil || r.Watch == nil {
		return 0
	}
	return r.Watch.Polled
}

// resConverge runs reconcile --once on ws, which must converge.
func resConverge(t *testing.T, ws string) {
	t.Helper()
	if code, out := runOnce(t, ws); code != 0 {
		t.Fatalf("reconcile --once: exit %d\n%s", code, out)
	}
}

// resState is what a file holds and when it was last written.
type resState struct {
	data  string
	mode  fs.FileMode
	mtime time.Time
}

func resStat(t *testing.T, p string) resState {
	t.Helper()
	info, err := os.Stat(p)
	must(t, err)
	data, err := os.ReadFile(p)
	must(t, err)
	return resState{string(data), info.Mode(), info.ModTime()}
}

// resLines are the lines of out that start with one of the verbs.
func resLines(out string, verbs ...string) []string {
	var lines []string
	for _, line := range strings.Split(out, "\n") {
		if verb, _, _ := strings.Cut(line, " "); slices.Contains(verbs, verb) {
			lines = append(lines, line)
		}
	}
	return lines
}
