package controller

import (
	"context"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/skillsync/skillsync/desired/registry"
)

func exampleWorkspace(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS("../fixtures/example")); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestWatchDirs(t *testing.T) {
	root := exampleWorkspace(t)
	outside := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, ".claude/skills/intent"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(root, ".agents")); err != nil {
		t.Fatal(err)
	}
	reg, err := registry.Load(root)
	if err != nil {
		t.Fatal(err)
	}
	r, err := os.OpenRoot(root)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	// .qwen/skills and .skillsync do not exist: their nearest parent is the root.
	// .agents is a symlink: neither it nor anything under it is watched.
	want := []string{".", ".claude/skills", ".claude/skills/intent", "registry", "skills"}
	if diff := cmp.Diff(want, watchDirs(r, reg)); diff != "" {
		t.Errorf("watch set (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{".", ".claude/skills", ".claude/skills/intent"}, watchDirs(r, nil)); diff != "" {
		t.Errorf("watch set without a registry (-want +got):\n%s", diff)
	}
}

// logLines is a slog handler that keeps every message.
type logLines struct {
	mu   sync.Mutex
	msgs []string
}

func (l *logLines) Enabled(context.Context, slog.Level) bool { return true }
func (l *logLines) WithAttrs([]slog.Attr) slog.Handler       { return l }
func (l *logLines) WithGroup(string) slog.Handler            { return l }
func (l *logLines) Handle(_ context.Context, r slog.Record) error {
	l.mu.Lock()
	l.msgs = append(l.msgs, r.Message)
	l.mu.Unlock()
	return nil
}
func (l *logLines) count(msg string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, m := range l.msgs {
		if m == msg {
			n++
		}
	}
	return n
}

// TestWatchRetriesAfterAnIOFailure makes a target directory immutable, so every
// create in it fails, and expects the watcher to retry on its own and converge once
// the directory is writable again. Polling once an hour stands in for a watcher that
// sees nothing: only the retry can wake the loop.
func TestWatchRetriesAfterAnIOFailure(t *testing.T) {
	root := exampleWorkspace(t)
	skills := filepath.Join(root, ".qwen/skills")
	if err := os.MkdirAll(skills, 0o755); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("chattr", "+i", skills).CombinedOutput(); err != nil {
		t.Skipf("cannot make a directory immutable here (chattr +i): %v %s", err, out)
	}
	defer exec.Command("chattr", "-i", skills).Run()

	logs := &logLines{}
	health := &Health{}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() {
		done <- Watch(ctx, WatchOptions{Request: Request{Root: root}, Debounce: 10 * time.Millisecond,
			MaxWait: 50 * time.Millisecond, Poll: time.Hour, Health: health, Log: slog.New(logs)})
	}()
	await(t, func() bool { return logs.count("retrying after failure") >= 1 })
	if health.Ready() {
		t.Error("ready after a failed run")
	}
	if out, err := exec.Command("chattr", "-i", skills).CombinedOutput(); err != nil {
		t.Fatalf("chattr -i: %v %s", err, out)
	}
	await(t, func() bool {
		_, err := os.Stat(filepath.Join(skills, "intent/SKILL.md"))
		return err == nil
	})
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if logs.count("change failed") == 0 {
		t.Error("the failed change was not logged")
	}
}

// await waits for cond; the limit bounds a condition and measures nothing.
func await(t *testing.T, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if cond() {
			return
		}
	}
	t.Fatal("condition never came true")
}

func TestGlobDirsCoverWildcardDirectories(t *testing.T) {
	root := t.TempDir()
	for _, d := range []string{"extra/a", "extra/b/deeper", "other"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	r, err := os.OpenRoot(root)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	got := globDirs(r, "extra/*/*.yaml")
	sort.Strings(got)
	if diff := cmp.Diff([]string{"extra", "extra/a", "extra/b"}, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"registry"}, globDirs(r, "registry/*.yaml")); diff != "" {
		t.Errorf("a missing fixed directory: (-want +got):\n%s", diff)
	}
}

func TestRefusedPlanIsNotReady(t *testing.T) {
	h := &Health{}
	refused := Outcome{Plan: Plan{Refused: "empty", Changes: []Change{{Action: Delete}}}}
	r := h.Record(refused, time.Now(), time.Millisecond)
	if h.Ready() || r.Result != "refused" || r.Counts["delete"] != 0 {
		t.Errorf("refused plan: ready=%v report=%+v", h.Ready(), r)
	}
	failed := Outcome{Plan: Plan{Changes: []Change{{Path: "a", Action: Create}, {Path: "b", Action: Create}}},
		Applied: []Applied{{Change: &Change{Path: "a", Action: Create}}, {Change: &Change{Path: "b", Action: Create}, Err: os.ErrPermission}},
		Err:     os.ErrPermission}
	if r := h.Record(failed, time.Now(), time.Millisecond); h.Ready() || r.Counts["create"] != 1 {
		t.Errorf("failed run: ready=%v counts=%v, want not ready and 1 create done", h.Ready(), r.Counts)
	}
	if r := h.Record(Outcome{Plan: Plan{Changes: []Change{{Action: Conflict}}}}, time.Now(), time.Millisecond); !h.Ready() || r.Result != "conflicts" {
		t.Errorf("conflicts kept: ready=%v result=%s", h.Ready(), r.Result)
	}
}
