package watch

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/skillsync/skillsync/controller"
	"github.com/skillsync/skillsync/internal/workspacefs"
)

// git-sync's publishing sequence, a hundred times while the watcher runs: each
// commit checked out as a worktree of its own under .worktrees, a fresh link
// renamed over the root, the old worktree removed. The repository commits the
// generated files, as `reconcile --check` in CI makes teams do, but only every
// other commit regenerates them; the others leave them for the watcher to update.
// Throughout, a reader finds every generated file through the root whenever the
// root led to the same worktree before and after its look, and /readyz never
// answers ready for a worktree the root no longer leads to.
func TestWatchFollowsAHundredGitSyncPublishes(t *testing.T) {
	const commits = 100
	base := t.TempDir()
	repo := filepath.Join(base, "repo")
	copyExample(t, repo)
	must(t, os.WriteFile(filepath.Join(repo, ".gitignore"), []byte(".skillsync/\n"), 0o644))
	regenerate := func() {
		out := controller.ReconcileOnce(controller.Request{System: workspacefs.OS{}, Root: repo}, 0)
		if len(out.Problems) > 0 || out.Err != nil {
			t.Fatalf("reconcile: %v %v", out.Problems, out.Err)
		}
	}
	gitIn(t, repo, "init", "-q")
	replaceIn(t, filepath.Join(repo, "registry/journal.yaml"), "title: Weekly report", "title: v0 Weekly report")
	regenerate()
	hashes := []string{commit(t, repo, "v0")}
	generated := generatedFiles(t, repo)
	if len(generated) == 0 {
		t.Fatal("no generated files")
	}
	for i := 1; i <= commits; i++ {
		replaceIn(t, filepath.Join(repo, "registry/journal.yaml"), fmt.Sprintf("title: v%d Weekly", i-1), fmt.Sprintf("title: v%d Weekly", i))
		if i%2 == 0 {
			regenerate()
		}
		hashes = append(hashes, commit(t, repo, fmt.Sprintf("v%d", i)))
	}

	gitRoot := filepath.Join(base, "git")
	gitIn(t, base, "clone", "-q", "--no-checkout", repo, gitRoot)
	root := filepath.Join(gitRoot, "root")
	publish := func(hash string) string {
		gitIn(t, gitRoot, "worktree", "add", "-q", "--detach", ".worktrees/"+hash, hash)
		swapLink(t, root, ".worktrees/"+hash)
		return filepath.Join(gitRoot, ".worktrees", hash)
	}
	current := publish(hashes[0])
	w := startWatcher(t, Options{Request: controller.Request{System: workspacefs.OS{}, Root: root}})

	var stop atomic.Bool
	var wg sync.WaitGroup
	var mu sync.Mutex
	var failures []string
	var looks, readies atomic.Int64
	fail := func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		if len(failures) < 10 {
			failures = append(failures, fmt.Sprintf(format, args...))
		}
	}
	wg.Go(func() { // the files, through the root
		for !stop.Load() {
			for _, rel := range generated {
				before, err := os.Readlink(root)
				if err != nil {
					fail("readlink: %v", err)
					continue
				}
				_, err = os.Lstat(filepath.Join(root, rel))
				if after, _ := os.Readlink(root); after != before {
					continue // the root moved during the look
				}
				looks.Add(1)
				if errors.Is(err, fs.ErrNotExist) {
					fail("%s was missing from %s", rel, before)
				}
			}
		}
	})
	wg.Go(func() { // /readyz
		for !stop.Load() {
			before, _ := os.Readlink(root)
			ready, tree := readyTree(w.url)
			after, _ := os.Readlink(root)
			if !ready || after != before {
				continue
			}
			readies.Add(1)
			if want := filepath.Join(gitRoot, before); tree != want {
				fail("/readyz answered ready for %s while the root led to %s", tree, want)
			}
		}
	})

	var oldTrees []string
	for i := 1; i <= commits; i++ {
		oldTrees = append(oldTrees, current)
		current = publish(hashes[i])
		// As git-sync does, remove the worktrees the root left; one the watcher
		// still writes into may resist, and is tried again at the next sync.
		oldTrees = slices.DeleteFunc(oldTrees, func(dir string) bool { return os.RemoveAll(dir) == nil })
		gitIn(t, gitRoot, "worktree", "prune")
		switch {
		case i%10 == 0: // now and then the watcher catches up before the next sync
			awaitConverged(t, w, i)
		default:
			time.Sleep(time.Duration(rand.IntN(30)) * time.Millisecond)
		}
	}
	await(t, func() bool {
		return holds(current, weeklyReport, fmt.Sprintf("v%d Weekly report", commits)) && w.ready() == Converged
	})
	stop.Store(true)
	wg.Wait()
	for _, f := range failures {
		t.Error(f)
	}
	if looks.Load() < int64(len(generated)) || readies.Load() == 0 {
		t.Errorf("the readers looked %d times and saw ready %d times: too few to tell anything", looks.Load(), readies.Load())
	}
}

// awaitConverged waits for the watcher to converge after publish i, and says
// why not if it does not.
func awaitConverged(t *testing.T, w *runningWatcher, i int) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if w.ready() == Converged {
			return
		}
	}
	select {
	case err := <-w.done:
		w.done <- err // for the cleanup
		t.Fatalf("the watcher stopped after publish %d: %v", i, err)
	default:
	}
	ready, result, why := w.readyz()
	t.Fatalf("publish %d never converged: ready %v, %s: %s\n%s", i, ready, result, why, strings.Join(w.logs.matching(""), "\n"))
}

// readyTree asks /readyz at url whether it is ready, and for which tree.
func readyTree(url string) (bool, string) {
	resp, err := http.Get(url)
	if err != nil {
		return false, ""
	}
	defer resp.Body.Close()
	var body struct {
		Ready   bool    `json:"ready"`
		LastRun *Report `json:"lastRun"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil || body.LastRun == nil {
		return false, ""
	}
	return body.Ready && resp.StatusCode == http.StatusOK, body.LastRun.Tree
}

// commit commits everything in repo and returns the commit's hash.
func commit(t *testing.T, repo, message string) string {
	t.Helper()
	gitIn(t, repo, "add", "-A")
	gitIn(t, repo, "commit", "-q", "-m", message)
	return strings.TrimSpace(gitIn(t, repo, "rev-parse", "HEAD"))
}

func gitIn(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com",
		"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com", "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}
