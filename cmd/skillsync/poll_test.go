package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/skillsync/skillsync/internal/syncbuffer"
	"github.com/skillsync/skillsync/internal/testkit"
)

// TestWatchPollConverges runs the real binary as a watcher under --poll (no inotify)
// and checks the same convergence as the inotify scripts, then stops it with SIGTERM.
func TestWatchPollConverges(t *testing.T) {
	bin := testkit.Build(t, "./cmd/skillsync", nil)
	ws := testkit.ExampleWorkspace(t)
	var logs syncbuffer.Buffer
	cmd := exec.Command(bin, "--workspace", ws, "reconcile", "--poll", "50ms", "--debounce", "20ms", "--max-wait", "200ms")
	cmd.Stderr = &logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()

	intent := filepath.Join(ws, ".claude/skills/intent/SKILL.md")
	awaitFile(t, intent, true, &logs)
	if err := os.Remove(intent); err != nil {
		t.Fatal(err)
	}
	awaitFile(t, intent, true, &logs)

	registry := filepath.Join(ws, "registry/journal.yaml")
	data, _ := os.ReadFile(registry)
	renamed := strings.Replace(string(data), "alias: note,", "alias: jot,", 1)
	testkit.WriteFile(t, ws, "registry/journal.yaml.tmp", []byte(renamed))
	if err := os.Rename(registry+".tmp", registry); err != nil {
		t.Fatal(err)
	}
	awaitFile(t, filepath.Join(ws, ".qwen/skills/jot/SKILL.md"), true, &logs)
	awaitFile(t, filepath.Join(ws, ".qwen/skills/note"), false, &logs)

	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("after SIGTERM: %v\n%s", err, logs.String())
	}
	temps, _ := filepath.Glob(filepath.Join(ws, ".*/skills/*/.skillsync-*.tmp"))
	if len(temps) != 0 {
		t.Errorf("temp files left: %v", temps)
	}
	if !strings.Contains(logs.String(), `msg=stopped`) {
		t.Errorf("no clean stop in the log:\n%s", logs.String())
	}
}

// awaitFile waits for path to exist (or not). The limit bounds a condition that a
// healthy watcher meets within a few poll intervals; it measures nothing.
func awaitFile(t *testing.T, path string, exists bool, logs *syncbuffer.Buffer) {
	t.Helper()
	for deadline := time.Now().Add(awaitLimit); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if _, err := os.Lstat(path); (err == nil) == exists {
			return
		}
	}
	t.Fatalf("%s: exists=%v never came true\n%s", path, exists, logs.String())
}
