package git

import (
	"context"
	"errors"
	"io/fs"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillsync/skillsync/desired/registry"
	"github.com/skillsync/skillsync/internal/testkit/gitremote"
)

func newCache(t *testing.T, u *gitremote.Upstream) Cache {
	return Cache{Dir: filepath.Join(t.TempDir(), "cache"), Env: u.Env}
}

func TestResolveFollowsGitsOrderAndPeelsAnnotatedTags(t *testing.T) {
	u := gitremote.New(t)
	first := u.Commit(t, "main", map[string]string{"deploy/SKILL.md": "one"})
	second := u.Commit(t, "main", map[string]string{"deploy/SKILL.md": "two"})
	u.Tag(t, "v1.0.0", first, "release 1")
	u.Tag(t, "light", first, "")
	// A branch and a tag of one name: the tag wins, as in git rev-parse.
	u.Commit(t, "v1.0.0", map[string]string{"other/SKILL.md": "branch"})
	c := newCache(t, u)
	ctx := context.Background()
	for _, tc := range []struct{ ref, want string }{
		{"v1.0.0", first},
		{"light", first},
		{"main", second},
		{"", second},
		{first, first},
	} {
		got, err := c.Resolve(ctx, u.URL, tc.ref)
		if err != nil || got != tc.want {
			t.Errorf("Resolve(%q) = %s, %v; want %s", tc.ref, got, err, tc.want)
		}
	}
	if _, err := c.Resolve(ctx, u.URL, "v9"); err == nil || !strings.Contains(err.Error(), `"v9"`) || !strings.Contains(err.Error(), "no tag or branch") {
		t.Errorf("Resolve of a missing ref = %v", err)
	}
	before := u.Requests.Load()
	off := c
	off.Offline = true
	if got, err := off.Resolve(ctx, u.URL, first); err != nil || got != first {
		t.Errorf("offline Resolve of a commit id = %s, %v", got, err)
	}
	if _, err := off.Resolve(ctx, u.URL, "main"); !errors.Is(err, ErrOffline) {
		t.Errorf("offline Resolve of a branch = %v, want ErrOffline", err)
	}
	if n := u.Requests.Load() - before; n != 0 {
		t.Errorf("offline resolves made %d requests", n)
	}
}

func TestFetchOnceThenReadFromTheCacheWithoutTheNetwork(t *testing.T) {
	u := gitremote.New(t)
	old := u.Commit(t, "main", map[string]string{
		"skills/deploy/SKILL.md":        "---\nname: deploy\n---\nold\n",
		"skills/deploy/scripts/run.sh*": "#!/bin/sh\necho run\n",
		"skills/deploy/icon.png":        "\x00\x89PNG\xff\xfe",
		"README.md":                     "not a skill",
	})
	u.Commit(t, "main", map[string]string{"skills/deploy/SKILL.md": "---\nname: deploy\n---\nnew\n"})
	c := newCache(t, u)
	ctx := context.Background()
	// The old commit, no longer any branch's tip, fetched by its id.
	if err := c.Fetch(ctx, u.URL, old); err != nil {
		t.Fatal(err)
	}
	fetched := u.Requests.Load()
	if fetched == 0 {
		t.Fatal("the fetch made no request")
	}
	if err := c.Fetch(ctx, u.URL, old); err != nil {
		t.Fatal(err)
	}
	off := c
	off.Offline = true
	files, err := off.Files(ctx, u.URL, old, "skills", nil, nil, DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	if n := u.Requests.Load() - fetched; n != 0 {
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
	if err := c.Fetch(ctx, "file://"+u.Bare, old); err != nil {
		t.Fatal(err)
	}
	if _, err := off.Files(ctx, "file://"+u.Bare, old, "skills", nil, nil, DefaultLimits); err != nil {
		t.Fatal(err)
	}
}

// A repository's .gitattributes cannot change what is read: git archive would
// leave out an export-ignore file and expand an export-subst one.
func TestFilesAreTheTreeAsCommitted(t *testing.T) {
	u := gitremote.New(t)
	commit := u.Commit(t, "main", map[string]string{
		".gitattributes":         "*.md export-subst\nhidden.txt export-ignore\n",
		"s/a/SKILL.md":           "commit $Format:%H$\n",
		"s/a/hidden.txt":         "still here\n",
		"s/a/.gitattributes":     "* export-ignore\n",
		"s/a/references/deep.md": "$Format:%an$",
	})
	c := newCache(t, u)
	ctx := context.Background()
	if err := c.Fetch(ctx, u.URL, commit); err != nil {
		t.Fatal(err)
	}
	files, err := c.Files(ctx, u.URL, commit, "s", nil, nil, DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, f := range files {
		if !f.Dir {
			got[f.Path] = string(f.Data)
		}
	}
	want := map[string]string{"a/SKILL.md": "commit $Format:%H$\n", "a/hidden.txt": "still here\n", "a/.gitattributes": "* export-ignore\n", "a/references/deep.md": "$Format:%an$"}
	if !maps.Equal(got, want) {
		t.Errorf("Files = %q, want the committed bytes %q", got, want)
	}
}

func TestOfflineNamesTheMissingCommit(t *testing.T) {
	u := gitremote.New(t)
	commit := u.Commit(t, "main", map[string]string{"a/SKILL.md": "a"})
	c := newCache(t, u)
	c.Offline = true
	err := c.Fetch(context.Background(), u.URL, commit)
	if !errors.Is(err, ErrOffline) || !strings.Contains(err.Error(), commit) {
		t.Fatalf("offline fetch = %v, want ErrOffline naming %s", err, commit)
	}
	if n := u.Requests.Load(); n != 0 {
		t.Errorf("offline fetch made %d requests", n)
	}
	if _, err := os.Stat(c.Dir); !os.IsNotExist(err) {
		t.Errorf("offline fetch made the cache directory: %v", err)
	}
}

// Processes sharing the cache fetch at once: into one repository, one commit
// or two. git's own locks would fail all but one of them.
func TestFetchesShareTheCache(t *testing.T) {
	u := gitremote.New(t)
	first := u.Commit(t, "main", map[string]string{"a/SKILL.md": "one"})
	second := u.Commit(t, "main", map[string]string{"a/SKILL.md": "two"})
	dir := filepath.Join(t.TempDir(), "cache")
	errs := make(chan error, 8)
	for i := range 8 {
		commit := first
		if i%2 == 1 {
			commit = second
		}
		go func() {
			c := Cache{Dir: dir, Env: u.Env}
			errs <- c.Fetch(context.Background(), u.URL, commit)
		}()
	}
	for range 8 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}

func TestNoCacheDirectoryIsAnError(t *testing.T) {
	commit := strings.Repeat("ab", 20)
	if err := (Cache{}).Fetch(context.Background(), "https://git.example.com/x.git", commit); !errors.Is(err, errNoCache) {
		t.Errorf("Fetch without a cache directory = %v", err)
	}
	if _, err := (Cache{}).Files(context.Background(), "https://git.example.com/x.git", commit, "", nil, nil, DefaultLimits); !errors.Is(err, errNoCache) {
		t.Errorf("Files without a cache directory = %v", err)
	}
}

func TestFailedFetchesSayWhyWithoutCredentials(t *testing.T) {
	u := gitremote.New(t)
	u.Commit(t, "main", map[string]string{"a/SKILL.md": "a"})
	c := newCache(t, u)
	ctx := context.Background()
	missing := strings.Repeat("ab", 20)
	if err := c.Fetch(ctx, u.URL, missing); err == nil || !strings.Contains(err.Error(), missing) {
		t.Errorf("fetch of a commit the remote lacks = %v", err)
	}
	if _, err := c.Resolve(ctx, u.URL+"-gone", "main"); err == nil || !strings.Contains(err.Error(), "-gone") {
		t.Errorf("resolve on a missing repository = %v", err)
	}
	// A user's configuration may rewrite a remote into one with a token; git's
	// messages then quote it, and skillsync's must not.
	if got := registry.RedactAll("fatal: unable to access 'https://me:s3cret@git.example.com/x.git/': 403"); strings.Contains(got, "s3cret") {
		t.Errorf("redactAll kept the token: %s", got)
	}
}

func TestFilesReadsTheSkillDirectoriesWithinLimits(t *testing.T) {
	u := gitremote.New(t)
	link := u.Commit(t, "main", map[string]string{"s/a/SKILL.md": "a", "s/a/out": "->../../../etc/passwd", "s/.github/x": "->../../README.md", "s/b/SKILL.md": "b"})
	big := u.Commit(t, "big", map[string]string{"s/a/SKILL.md": "a", "s/a/big.bin": strings.Repeat("x", 2048), "s/elsewhere/huge.bin": strings.Repeat("x", 8192)})
	many := map[string]string{"s/a/SKILL.md": "a"}
	for i := range 30 {
		many["s/a/f"+string(rune('a'+i%26))+strings.Repeat("z", i/26)] = "x"
	}
	lots := u.Commit(t, "many", many)
	sub := u.Commit(t, "sub", map[string]string{"s/a/SKILL.md": "a", "s/a/vendor": "@" + link})
	forged := u.Commit(t, "forged", map[string]string{"s/a/SKILL.md": "a", "s/a/x\n  - removed everything.md": "x"})
	c := newCache(t, u)
	ctx := context.Background()
	for _, commit := range []string{link, big, lots, sub, forged} {
		if err := c.Fetch(ctx, u.URL, commit); err != nil {
			t.Fatal(err)
		}
	}
	small := Limits{Files: 20, Bytes: 4096, FileSize: 1024}
	for _, tc := range []struct {
		name, commit, dir, want string
	}{
		{"file too large", big, "s", "s/a/big.bin is larger than 1024 bytes"},
		{"too many files", lots, "s", "the skill directories of s hold more than 20 files and folders"},
		{"no such folder", link, "nowhere", "has no folder nowhere"},
		{"a name that prints as two lines", forged, "s", `"a/x\n  - removed everything.md" is not a path inside s`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := c.Files(ctx, u.URL, tc.commit, tc.dir, nil, nil, small)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Files = %v, want an error saying %q", err, tc.want)
			}
			if noFolder := tc.dir == "nowhere"; errors.Is(err, registry.ErrNoFolder) != noFolder {
				t.Errorf("Files = %v: errors.Is(registry.ErrNoFolder) should be %v", err, noFolder)
			}
		})
	}
	// A symlink or a submodule in a skill directory is listed, unread, for the
	// registry to refuse at its path; outside the skill directories taken,
	// nothing is listed or counted.
	kinds := func(commit string, take func(string) bool) map[string]string {
		files, err := c.Files(ctx, u.URL, commit, "s", take, nil, small)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]string{}
		for _, f := range files {
			switch {
			case f.Link:
				out[f.Path] = "link"
			case f.Submodule:
				out[f.Path] = "submodule"
			case f.Dir:
				out[f.Path] = "dir"
			default:
				out[f.Path] = string(f.Data)
			}
		}
		return out
	}
	if got, want := kinds(link, nil), map[string]string{"a": "dir", "a/SKILL.md": "a", "a/out": "link", "b": "dir", "b/SKILL.md": "b"}; !maps.Equal(got, want) {
		t.Errorf("Files of the links = %v, want %v", got, want)
	}
	if got, want := kinds(link, func(s string) bool { return s == "b" }), map[string]string{"b": "dir", "b/SKILL.md": "b"}; !maps.Equal(got, want) {
		t.Errorf("Files of b alone = %v, want %v", got, want)
	}
	if got, want := kinds(sub, nil), map[string]string{"a": "dir", "a/SKILL.md": "a", "a/vendor": "submodule"}; !maps.Equal(got, want) {
		t.Errorf("Files of the submodule = %v, want %v", got, want)
	}
	// huge.bin is outside every skill directory: it counts against no limit.
	files, err := c.Files(ctx, u.URL, big, "s", nil, nil, Limits{Files: 20, Bytes: 4096, FileSize: 4096})
	if err != nil || len(files) != 3 {
		t.Errorf("Files of a skill beside a folder too large = %d files, %v; want a, its SKILL.md and big.bin", len(files), err)
	}
}

// A commit arrives whole, whatever of it a source reads: one whose fetch adds
// more than the bound to the cache leaves nothing of it there.
func TestAFetchPastItsBoundKeepsNothing(t *testing.T) {
	u := gitremote.New(t)
	small := u.Commit(t, "small", map[string]string{"s/a/SKILL.md": "a"})
	// Bytes no compression shrinks.
	noise := make([]byte, 3<<20)
	rand.NewChaCha8([32]byte{1}).Read(noise)
	big := u.Commit(t, "big", map[string]string{"s/a/SKILL.md": "a", "elsewhere/noise.bin": string(noise)})
	c := newCache(t, u)
	c.MaxFetch = 1 << 20
	ctx := context.Background()
	if err := c.Fetch(ctx, u.URL, small); err != nil {
		t.Fatal(err)
	}
	err := c.Fetch(ctx, u.URL, big)
	if err == nil || !strings.Contains(err.Error(), "it passed 1048576 bytes, at most what one fetch may add to the cache; nothing of it is kept") {
		t.Fatalf("a fetch of 3 MiB under a bound of 1 MiB = %v", err)
	}
	if _, err := os.Stat(c.repo(u.URL)); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the cache repository is still there after a fetch past the bound: %v", err)
	}
	// What the removed repository held is fetched again when needed.
	if err := c.Fetch(ctx, u.URL, small); err != nil {
		t.Fatal(err)
	}
	if files, err := c.Files(ctx, u.URL, small, "s", nil, nil, DefaultLimits); err != nil || len(files) != 2 {
		t.Errorf("Files of the small commit fetched again = %v, %v", files, err)
	}
}
