//go:build reliability && linux

package reliability

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/skillsync/skillsync/internal/testkit"
)

// TestConcurrency: one writer per workspace. Two --once runs racing on the same
// changes serialise on the lock and both succeed; a second watcher and a --once that
// must write report the holder; a lock left by a killed watcher is taken over.
func TestConcurrency(t *testing.T) {
	rounds := count("RELIABILITY_RACES", 50)
	rng := rand.New(rand.NewPCG(uint64(seed(1)), 7))
	failures := 0
	ws := example(t, t.TempDir())
	for i := range rounds {
		// A random change for both to make: retitle a capability.
		registry := filepath.Join(ws, "registry/intents.yaml")
		data, _ := os.ReadFile(registry)
		title := fmt.Sprintf("Search intents %d", rng.IntN(1_000_000))
		data = []byte(replaceLine(string(data), "  title: Search intents", "  title: "+title))
		must(t, os.WriteFile(registry, data, 0o644))
		var wg sync.WaitGroup
		codes := make([]int, 2)
		outs := make([]string, 2)
		for j := range 2 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				codes[j], outs[j] = runOnce(t, ws)
			}()
		}
		wg.Wait()
		got, _ := os.ReadFile(filepath.Join(ws, ".claude/skills/find-intent/SKILL.md"))
		check, checkOut := runOnce(t, ws, "--check")
		if codes[0] != 0 || codes[1] != 0 || !bytes.Contains(got, []byte(title)) || check != 0 || hasTemp(ws) {
			failures++
			t.Errorf("round %d: exits %v, converged %v, --check %d\n%s\n%s\n%s", i, codes, bytes.Contains(got, []byte(title)), check, outs[0], outs[1], checkOut)
		}
	}

	// A watcher holds the lock; a second watcher and a --once with work report it.
	addr := testkit.FreeAddr(t)
	watcher := exec.Command(testkit.Binary(t), "--workspace", ws, "reconcile", "--health-addr", addr)
	must(t, watcher.Start())
	awaitReady(t, addr)
	second, out := run(testkit.Binary(t), "--workspace", ws, "reconcile", "--watch")
	pid := fmt.Sprintf("pid %d", watcher.Process.Pid)
	if second != 4 || !strings.Contains(out, pid) {
		failures++
		t.Errorf("second watcher: exit %d, want 4 naming %s: %s", second, pid, out)
	}
	// A hand edit that keeps the banner: --force has something to write.
	edited := filepath.Join(ws, ".qwen/skills/intent/SKILL.md")
	data, _ := os.ReadFile(edited)
	must(t, os.WriteFile(edited, append(data, "edited\n"...), 0o644))
	once, out := run(testkit.Binary(t), "--workspace", ws, "reconcile", "--once", "--force", "--lock-timeout", "100ms")
	if once != 4 || !strings.Contains(out, pid) {
		failures++
		t.Errorf("--once while a watcher holds the lock: exit %d, want 4 naming %s: %s", once, pid, out)
	}

	// Killed without a chance to clean up: the next watcher takes the lock over.
	must(t, watcher.Process.Signal(syscall.SIGKILL))
	watcher.Wait()
	next := exec.Command(testkit.Binary(t), "--workspace", ws, "reconcile", "--health-addr", addr, "--log-format", "json")
	var logs bytes.Buffer
	next.Stderr = &logs
	must(t, next.Start())
	awaitReady(t, addr)
	must(t, next.Process.Signal(syscall.SIGTERM))
	if err := next.Wait(); err != nil || !strings.Contains(logs.String(), `"msg":"lock taken over"`) {
		failures++
		t.Errorf("lock of a killed watcher: %v\n%s", err, logs.String())
	}
	report("concurrency", rounds+3, failures, "racing --once runs serialise and converge; a second writer names the holder; a dead holder's lock is taken over")
}

func run(name string, args ...string) (int, string) {
	out, err := exec.Command(name, args...).CombinedOutput()
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode(), string(out)
	}
	if err != nil {
		return -1, err.Error()
	}
	return 0, string(out)
}

// awaitReady waits for the watcher serving its health on addr to answer ready.
func awaitReady(t *testing.T, addr string) {
	t.Helper()
	testkit.AwaitReady(t, "http://"+addr+"/readyz", 30*time.Second, nil)
}

func replaceLine(text, prefix, line string) string {
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, prefix) {
			lines[i] = line
			break
		}
	}
	return strings.Join(lines, "\n")
}

func hasTemp(ws string) bool {
	matches, _ := filepath.Glob(filepath.Join(ws, ".*/skills/*/.skillsync-*.tmp"))
	return len(matches) > 0
}
