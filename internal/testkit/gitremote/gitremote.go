package gitremote

import (
	"errors"
	"io"
	"net/http"
	"net/http/cgi"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
)

// Env keeps the tests' git away from the machine's configuration.
func Env(t testing.TB) []string {
	home := t.TempDir()
	return []string{"HOME=" + home, "XDG_CONFIG_HOME=" + home, "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com"}
}

// Run runs git in dir and returns its trimmed stdout.
func Run(t testing.TB, env []string, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			t.Fatalf("git %v: %v: %s", args, err, ee.Stderr)
		}
		t.Fatalf("git %v: %v", args, err)
	}
	return strings.TrimSpace(string(out))
}

// Upstream is a repository of skills served over smart HTTP by git http-backend,
// the way a git host serves it, counting the requests it answers.
type Upstream struct {
	Bare     string // the served repository, for file:// remotes
	URL      string // its smart-HTTP remote
	Requests atomic.Int64
	Env      []string
}

// New serves an empty repository, its default branch main, until the test ends.
func New(t testing.TB) *Upstream {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git on PATH")
	}
	execPath, err := exec.Command("git", "--exec-path").Output()
	if err != nil {
		t.Fatalf("git --exec-path: %v", err)
	}
	backend := strings.TrimSpace(string(execPath))
	u := &Upstream{Env: Env(t)}
	root := t.TempDir()
	u.Bare = filepath.Join(root, "skills.git")
	Run(t, u.Env, root, "init", "--quiet", "--bare", "-b", "main", u.Bare)
	h := &cgi.Handler{Path: filepath.Join(backend, "git-http-backend"), Env: []string{"GIT_PROJECT_ROOT=" + root, "GIT_HTTP_EXPORT_ALL=1"}, Stderr: io.Discard}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		u.Requests.Add(1)
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	u.URL = srv.URL + "/skills.git"
	return u
}

// Commit writes files into a fresh work tree on top of the branch, commits them,
// pushes, and returns the commit. A name ending in * is made executable; a body
// "->TARGET" makes a symlink to TARGET, and "@COMMIT" a submodule at COMMIT.
func (u *Upstream) Commit(t testing.TB, branch string, files map[string]string) string {
	t.Helper()
	work := t.TempDir()
	Run(t, u.Env, work, "init", "--quiet", "-b", branch)
	if Run(t, u.Env, work, "ls-remote", u.Bare, "refs/heads/"+branch) != "" {
		Run(t, u.Env, work, "fetch", "--quiet", u.Bare, branch)
		Run(t, u.Env, work, "reset", "--quiet", "--hard", "FETCH_HEAD")
	}
	var gitlinks []string
	for name, body := range files {
		exe := strings.HasSuffix(name, "*")
		name = strings.TrimSuffix(name, "*")
		p := filepath.Join(work, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		mode := os.FileMode(0o644)
		if exe {
			mode = 0o755
		}
		if commit, ok := strings.CutPrefix(body, "@"); ok {
			gitlinks = append(gitlinks, "160000,"+commit+","+name)
			continue
		}
		if strings.HasPrefix(body, "->") {
			if err := os.Symlink(strings.TrimPrefix(body, "->"), p); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.WriteFile(p, []byte(body), mode); err != nil {
			t.Fatal(err)
		}
	}
	Run(t, u.Env, work, "add", "-A")
	for _, l := range gitlinks {
		Run(t, u.Env, work, "update-index", "--add", "--cacheinfo", l)
	}
	Run(t, u.Env, work, "commit", "--quiet", "-m", "skills")
	Run(t, u.Env, work, "push", "--quiet", u.Bare, "HEAD:refs/heads/"+branch)
	return Run(t, u.Env, work, "rev-parse", "HEAD")
}

// Tag tags commit in the served repository, annotated when message is not empty.
func (u *Upstream) Tag(t testing.TB, name, commit, message string) {
	t.Helper()
	if message == "" {
		Run(t, u.Env, u.Bare, "tag", name, commit)
		return
	}
	Run(t, u.Env, u.Bare, "tag", "-a", "-m", message, name, commit)
}
