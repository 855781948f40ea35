package git

import (
	"context"
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

// gitEnv keeps the tests' git away from the machine's configuration.
func gitEnv(t *testing.T) []string {
	home := t.TempDir()
	return []string{"HOME=" + home, "XDG_CONFIG_HOME=" + home, "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com"}
}

// run runs git in dir and returns its trimmed stdout.
func run(t *testing.T, env []string, dir string, args ...string) string {
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

// upstream is a repository of skills served over smart HTTP by git http-backend,
// the way a git host serves it, counting the requests it answers.
type upstream struct {
	bare     string // the served repository, for file:// remotes
	url      string // its smart-HTTP remote
	requests atomic.Int64
	env      []string
}

func newUpstream(t *testing.T) *upstream {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git on PATH")
	}
	backend := strings.TrimSpace(string(must(exec.Command("git", "--exec-path").Output())))
	u := &upstream{env: gitEnv(t)}
	root := t.TempDir()
	u.bare = filepath.Join(root, "skills.git")
	run(t, u.env, root, "init", "--quiet", "--bare", "-b", "main", u.bare)
	h := &cgi.Handler{Path: filepath.Join(backend, "git-http-backend"), Env: []string{"GIT_PROJECT_ROOT=" + root, "GIT_HTTP_EXPORT_ALL=1"}, Stderr: io.Discard}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		u.requests.Add(1)
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	u.url = srv.URL + "/skills.git"
	return u
}

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}

// commit writes files (a name ending in * is made executable) into a fresh work
// tree on top of the branch, commits them, pushes, and returns the commit.
func (u *upstream) commit(t *testing.T, branch string, files map[string]string) string {
	t.Helper()
	work := t.TempDir()
	run(t, u.env, work, "init", "--quiet", "-b", branch)
	if run(t, u.env, work, "ls-remote", u.bare, "refs/heads/"+branch) != "" {
		run(t, u.env, work, "fetch", "--quiet", u.bare, branch)
		run(t, u.env, work, "reset", "--quiet", "--hard", "FETCH_HEAD")
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
	run(t, u.env, work, "add", "-A")
	for _, l := range gitlinks {
		run(t, u.env, work, "update-index", "--add", "--cacheinfo", l)
	}
	run(t, u.env, work, "commit", "--quiet", "-m", "skills")
	run(t, u.env, work, "push", "--quiet", u.bare, "HEAD:refs/heads/"+branch)
	return run(t, u.env, work, "rev-parse", "HEAD")
}

// tag tags commit in the served repository, annotated when message is not empty.
func (u *upstream) tag(t *testing.T, name, commit, message string) {
	t.Helper()
	if message == "" {
		run(t, u.env, u.bare, "tag", name, commit)
		return
	}
	run(t, u.env, u.bare, "tag", "-a", "-m", message, name, commit)
}

func newCache(t *testing.T, u *upstream) Cache {
	return Cache{Dir: filepath.Join(t.TempDir(), "cache"), Env: u.env}
}

func TestResolveFollowsGitsOrderAndPeelsAnnotatedTags(t *testing.T) {
	u := newUpstream(t)
	first := u.commit(t, "main", map[string]string{"deploy/SKILL.md": "one"})
	second := u.commit(t, "main", map[string]string{"deploy/SKILL.md": "two"})
	u.tag(t, "v1.0.0", first, "release 1")
	u.tag(t, "light", first, "")
	// A branch and a tag of one name: the tag wins, as in git rev-parse.
	u.commit(t, "v1.0.0", map[string]string{"other/SKILL.md": "branch"})
	c := newCache(t, u)
	ctx := context.Background()
	for _, tc := range []struct{ ref, want string }{
		{"v1.0.0", first},
		{"light", first},
		{"main", second},
		{"", second},
		{first, first},
	} {
		got, err := c.Resolve(ctx, u.url, tc.ref)
		if err != nil || got != tc.want {
			t.Errorf("Resolve(%q) = %s, %v; want %s", tc.ref, got, err, tc.want)
		}
	}
	if _, err := c.Resolve(ctx, u.url, "v9"); err == nil || !strings.Contains(err.Error(), `"v9"`) || !strings.Contains(err.Error(), "no tag or branch") {
		t.Errorf("Resolve of a missing ref = %v", err)
	}
	before := u.requests.Load()
	off := c
	off.Offline = true
	if got, err := off.Resolve(ctx, u.url, first); err != nil || got != first {
		t.Errorf("offline Resolve of a commit id = %s, %v", got, err)
	}
	if _, err := off.Resolve(ctx, u.url, "main"); !errors.Is(err, ErrOffline) {
		t.Errorf("offline Resolve of a branch = %v, want ErrOffline", err)
	}
	if n := u.requests.Load() - before; n != 0 {
		t.Errorf("offline resolves made %d requests", n)
	}
}

func TestFetchOnceThenReadFromTheCacheWithoutTheNetwork(t *testing.T) {
	u := newUpstream(t)
	old := u.commit(t, "main", map[string]string{
		"skills/deploy/SKILL.md":        "---\nname: deploy\n---\nold\n",
		"skills/deploy/scripts/run.sh*": "#!/bin/sh\necho run\n",
		"skills/deploy/icon.png":        "\x00\x89PNG\xff\xfe",
		"README.md":                     "not a skill",
	})
	u.commit(t, "main", map[string]string{"skills/deploy/SKILL.md": "---\nname: deploy\n---\nnew\n"})
	c := newCache(t, u)
	ctx := context.Background()
	// The old commit, no longer any branch's tip, fetched by its id.
	if err := c.Fetch(ctx, u.url, old); err != nil {
		t.Fatal(err)
	}
	fetched := u.requests.Load()
	if fetched == 0 {
		t.Fatal("the fetch made no request")
	}
	if err := c.Fetch(ctx, u.url, old); err != nil {
		t.Fatal(err)
	}
	off := c
	off.Offline = true
	files, err := off.Files(ctx, u.url, old, "skills", DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	if n := u.requests.Load() - fetched; n != 0 {
		t.Errorf("a second fetch and a read of a cached commit made %d requests", n)
	}
	got := map[string]File{}
	for _, f := range files {
		got[f.Path] = f
	}
	for _, p := range []string{"deploy", "deploy/scripts"} {
		if !got[p].Dir {
			t.Errorf("folder %s missing: %+v", p, files)
		}
	}
	if f := got["deploy/SKILL.md"]; string(f.Data) != "---\nname: deploy\n---\nold\n" || f.Executable {
		t.Errorf("SKILL.md = %+v", f)
	}
	if f := got["deploy/scripts/run.sh"]; !f.Executable {
		t.Errorf("run.sh lost its executable bit: %+v", f)
	}
	if f := got["deploy/icon.png"]; string(f.Data) != "\x00\x89PNG\xff\xfe" {
		t.Errorf("icon.png = %q, want its bytes", f.Data)
	}
	if _, ok := got["README.md"]; ok || len(files) != 5 {
		t.Errorf("files outside skills/ or too many: %d files", len(files))
	}
	// The same commit through file://, into the same cache directory: its own
	// repository, since the remote differs.
	if err := c.Fetch(ctx, "file://"+u.bare, old); err != nil {
		t.Fatal(err)
	}
	if _, err := off.Files(ctx, "file://"+u.bare, old, "skills/deploy", DefaultLimits); err != nil {
		t.Fatal(err)
	}
}

func TestOfflineNamesTheMissingCommit(t *testing.T) {
	u := newUpstream(t)
	commit := u.commit(t, "main", map[string]string{"a/SKILL.md": "a"})
	c := newCache(t, u)
	c.Offline = true
	err := c.Fetch(context.Background(), u.url, commit)
	if !errors.Is(err, ErrOffline) || !strings.Contains(err.Error(), commit) {
		t.Fatalf("offline fetch = %v, want ErrOffline naming %s", err, commit)
	}
	if n := u.requests.Load(); n != 0 {
		t.Errorf("offline fetch made %d requests", n)
	}
	if _, err := os.Stat(c.Dir); !os.IsNotExist(err) {
		t.Errorf("offline fetch made the cache directory: %v", err)
	}
}

func TestFailedFetchesSayWhyWithoutCredentials(t *testing.T) {
	u := newUpstream(t)
	u.commit(t, "main", map[string]string{"a/SKILL.md": "a"})
	c := newCache(t, u)
	ctx := context.Background()
	missing := strings.Repeat("ab", 20)
	if err := c.Fetch(ctx, u.url, missing); err == nil || !strings.Contains(err.Error(), missing) {
		t.Errorf("fetch of a commit the remote lacks = %v", err)
	}
	if _, err := c.Resolve(ctx, u.url+"-gone", "main"); err == nil || !strings.Contains(err.Error(), "-gone") {
		t.Errorf("resolve on a missing repository = %v", err)
	}
	// A user's configuration may rewrite a remote into one with a token; git's
	// messages then quote it, and skillsync's must not.
	if got := redactAll("fatal: unable to access 'https://me:s3cret@git.example.com/x.git/': 403"); strings.Contains(got, "s3cret") {
		t.Errorf("redactAll kept the token: %s", got)
	}
}

func TestFilesRefusesWhatASkillCannotHold(t *testing.T) {
	u := newUpstream(t)
	link := u.commit(t, "main", map[string]string{"s/a/SKILL.md": "a", "s/a/out": "->../../../etc/passwd"})
	big := u.commit(t, "big", map[string]string{"s/a/SKILL.md": "a", "s/a/big.bin": strings.Repeat("x", 2048)})
	many := map[string]string{}
	for i := range 30 {
		many["s/a/f"+string(rune('a'+i%26))+strings.Repeat("z", i/26)] = "x"
	}
	lots := u.commit(t, "many", many)
	sub := u.commit(t, "sub", map[string]string{"s/a/SKILL.md": "a", "s/a/vendor": "@" + link})
	c := newCache(t, u)
	ctx := context.Background()
	for _, commit := range []string{link, big, lots, sub} {
		if err := c.Fetch(ctx, u.url, commit); err != nil {
			t.Fatal(err)
		}
	}
	small := Limits{Files: 20, Bytes: 4096, FileSize: 1024}
	for _, tc := range []struct {
		name, commit, dir, want string
	}{
		{"symlink", link, "s", "s/a/out"},
		{"file too large", big, "s", "s/a/big.bin is larger than 1024 bytes"},
		{"too many files", lots, "s", "s holds more than 20 files and folders"},
		{"no such folder", link, "nowhere", "has no folder nowhere"},
		{"submodule", sub, "s", "s/a/vendor is a submodule"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := c.Files(ctx, u.url, tc.commit, tc.dir, small)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Files = %v, want an error saying %q", err, tc.want)
			}
		})
	}
}

func TestCheckRemote(t *testing.T) {
	for _, ok := range []string{
		"https://git.example.com/acme/skills.git",
		"ssh://git@git.example.com/acme/skills.git",
		"git@github.com:acme/skills.git",
		"file:///srv/git/skills.git",
		"https://bot@git.example.com/acme/skills.git",
	} {
		if err := CheckRemote(ok); err != nil {
			t.Errorf("CheckRemote(%q) = %v", ok, err)
		}
	}
	for remote, want := range map[string]string{
		"ext::sh -c touch% /tmp/pwned":        "space",
		"ext::sh":                             `uses "ext"`,
		"fd::17":                              `uses "fd"`,
		"--upload-pack=touch /tmp/x":          "space",
		"-uhelp":                              "starts with '-'",
		"https://me:s3cret@git.example.com/x": "credential helper",
		"https://git.example.com/x\n":         "control character",
		"":                                    "empty",
		"https:///x":                          "no host",
		"file://elsewhere/srv/x":              "names a host",
		"/srv/git/skills.git":                 "use https://",
	} {
		err := CheckRemote(remote)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("CheckRemote(%q) = %v, want it to say %q", remote, err, want)
		}
		if err != nil && strings.Contains(err.Error(), "s3cret") {
			t.Errorf("CheckRemote(%q) repeats the token: %v", remote, err)
		}
	}
}
