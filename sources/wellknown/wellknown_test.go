package wellknown

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/skillsync/skillsync/desired/registry"
	"github.com/skillsync/skillsync/internal/workspacefs"
	"github.com/skillsync/skillsync/sources/archive"
	"github.com/skillsync/skillsync/sources/blobs"
)

// site serves files over TLS, as a docs site serves its index, counting the
// requests it answers.
type site struct {
	srv      *httptest.Server
	files    map[string][]byte
	requests atomic.Int64
}

func newSite(t *testing.T, files map[string][]byte) *site {
	s := &site{files: files}
	s.srv = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.requests.Add(1)
		data, ok := s.files[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Write(data)
	}))
	t.Cleanup(s.srv.Close)
	return s
}

func (s *site) url(p string) string { return s.srv.URL + p }

func (s *site) cache(t *testing.T) Cache {
	return Cache{Dir: filepath.Join(t.TempDir(), "cache"), Client: s.srv.Client()}
}

func index(entries ...string) []byte {
	return []byte(`{"$schema": "` + SchemaV020 + `", "skills": [` + strings.Join(entries, ",") + `]}`)
}

func entry(name, typ, url string, data []byte) string {
	return fmt.Sprintf(`{"name": %q, "type": %q, "description": "The %s skill.", "url": %q, "digest": %q}`, name, typ, name, url, blobs.Digest(data))
}

func TestAnIndexSourceIsReadPinnedAndCached(t *testing.T) {
	skillMD := []byte("---\nname: greet\ndescription: Greet.\n---\nSay hello.\n")
	tgz := tarGz(t, registry.SupportFile{Path: "SKILL.md", Data: []byte("---\nname: deploy\ndescription: Deploy.\n---\nRun scripts/go.sh.\n")},
		registry.SupportFile{Path: "scripts/go.sh", Data: []byte("#!/bin/sh\necho go\n"), Executable: true})
	s := newSite(t, map[string][]byte{
		"/greet/SKILL.md": skillMD,
		"/deploy.tar.gz":  tgz,
	})
	// Relative URLs resolve against the index's, as RFC 3986 says.
	s.files["/.well-known/agent-skills/index.json"] = index(entry("greet", "skill-md", "../../greet/SKILL.md", skillMD), entry("deploy", "archive", "/deploy.tar.gz", tgz))
	r := NewReader(s.cache(t))
	src := registry.RemoteSource{Name: "docs", Index: s.url("/.well-known/agent-skills/index.json")}
	locked, err := r.Resolve(src)
	if err != nil {
		t.Fatal(err)
	}
	if locked.Artifacts["greet"].URL != s.url("/greet/SKILL.md") || locked.Digest != blobs.Digest(s.files["/.well-known/agent-skills/index.json"]) {
		t.Errorf("Resolve = %+v", locked)
	}
	files, err := r.ReadSource(src, locked)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]registry.SourceFile{}
	for _, f := range files {
		got[f.Path] = f
	}
	if !got["greet"].Dir || string(got["greet/SKILL.md"].Data) != string(skillMD) || !got["deploy/scripts"].Dir || !got["deploy/scripts/go.sh"].Executable {
		t.Errorf("ReadSource = %+v", files)
	}
	sums, ps := registry.SourceSkills(src, files)
	if len(ps) > 0 || len(sums) != 2 {
		t.Errorf("SourceSkills = %v, %v", sums, ps)
	}
	// A fresh reader over the same cache, offline: no request.
	before := s.requests.Load()
	off := s.cache(t)
	off.Dir, off.Offline = r.Cache.Dir, true
	if _, err := NewReader(off).ReadSource(src, locked); err != nil {
		t.Fatalf("offline read of cached artifacts: %v", err)
	}
	if n := s.requests.Load() - before; n != 0 {
		t.Errorf("reading cached artifacts made %d requests", n)
	}
	// A cached copy that lost its bytes is fetched again, not trusted.
	cached := filepath.Join(r.Cache.Dir, "sha256", strings.TrimPrefix(locked.Artifacts["deploy"].Digest, "sha256:"))
	if err := os.WriteFile(cached, []byte("torn"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := NewReader(r.Cache).ReadSource(src, locked); err != nil || s.requests.Load() == before {
		t.Errorf("a damaged cached artifact: %v, %d requests", err, s.requests.Load()-before)
	}
	// The site replaces an artifact: the lock's digest no longer matches.
	s.files["/deploy.tar.gz"] = tarGz(t, registry.SupportFile{Path: "SKILL.md", Data: []byte("changed")})
	fresh := s.cache(t)
	if _, err := NewReader(fresh).ReadSource(src, locked); err == nil || !strings.Contains(err.Error(), "not "+locked.Artifacts["deploy"].Digest) {
		t.Errorf("an artifact replaced at its URL = %v", err)
	}
	fresh.Offline = true
	if _, err := NewReader(fresh).ReadSource(src, locked); !errors.Is(err, ErrOffline) {
		t.Errorf("offline without the artifact = %v", err)
	}
}

func TestIndexesSkillsyncDoesNotRead(t *testing.T) {
	md := []byte("x")
	good := entry("good", "skill-md", "good.md", md)
	for _, tc := range []struct{ name, body, want string }{
		{"no schema (0.1.0)", `{"skills": []}`, `has $schema ""`},
		{"another type", string(index(good, entry("a", "bundle", "a.md", md))), `type "bundle"`},
		{"a bad digest", string(index(good, strings.Replace(entry("a", "skill-md", "a.md", md), "sha256:", "md5:", 1))), "not sha256:"},
		{"plain http elsewhere", string(index(good, entry("a", "skill-md", "http://example.com/a.md", md))), "the artifact URL http://example.com/a.md is not https://"},
		{"a data URL", string(index(good, entry("a", "skill-md", "data:text/plain,hi", md))), "the artifact URL data:text/plain,hi names no host"},
		{"a user in the URL", string(index(good, entry("a", "skill-md", "https://tok:s3cret@example.com/a.md", md))), "carries a user or token"},
		{"one name twice", string(index(good, entry("a", "skill-md", "a.md", md), entry("a", "skill-md", "b.md", md))), "names skill a twice"},
		{"a name out of the directory", string(index(good, entry("../../x", "skill-md", "x.md", md))), `names skill "../../x", which is not a skill name`},
		{"an empty name", string(index(good, entry("", "skill-md", "x.md", md))), `names skill "", which is not a skill name`},
		{"not JSON", "<html>", "is not JSON"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newSite(t, map[string][]byte{"/index.json": []byte(tc.body)})
			r := NewReader(s.cache(t))
			src := registry.RemoteSource{Name: "docs", Index: s.url("/index.json")}
			_, err := r.Resolve(src)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Resolve = %v, want %q", err, tc.want)
			}
			if err != nil && strings.Contains(err.Error(), "s3cret") {
				t.Errorf("the error repeats a secret: %v", err)
			}
			// A source that leaves the bad entry out reads the good one.
			if strings.Contains(tc.body, `"good"`) {
				src.Include = []string{"good"}
				if locked, err := r.Resolve(src); err != nil || len(locked.Artifacts) != 1 {
					t.Errorf("Resolve with include: [good] = %+v, %v", locked, err)
				}
			}
		})
	}
}

// A site read over https cannot send a reader to plain http, on this machine
// or elsewhere.
func TestRedirectsStayOnHTTPS(t *testing.T) {
	local := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("local service")) }))
	defer local.Close()
	s := newSite(t, map[string][]byte{})
	s.srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, local.URL+"/admin", http.StatusFound)
	})
	c := s.cache(t)
	c.Client = &http.Client{Transport: s.srv.Client().Transport, CheckRedirect: Cache{}.client().CheckRedirect}
	_, err := c.Artifact(context.Background(), registry.Artifact{Type: registry.ArtifactSkillMD, URL: s.url("/a.md"), Digest: blobs.Digest([]byte("x"))})
	if err == nil || !strings.Contains(err.Error(), "a redirect from https:// to http://") {
		t.Errorf("a redirect to http on this machine = %v", err)
	}
}

func TestPublishKeepsWhatItDidNotWrite(t *testing.T) {
	skills := []archive.SkillDir{{Name: "deploy", Description: "Deploy.", SkillMD: []byte("---\nname: deploy\n---\n"),
		Files: []registry.SupportFile{{Path: "run.sh", Data: []byte("#!/bin/sh\n"), Executable: true}}}}
	dir := t.TempDir()
	theirs := filepath.Join(dir, ".well-known/agent-skills/deploy.tar.gz")
	if err := os.MkdirAll(filepath.Dir(theirs), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(theirs, []byte("someone else's"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Publish(workspacefs.OS{}, dir, skills); err == nil || !strings.Contains(err.Error(), "deploy.tar.gz is there and skillsync did not publish it") {
		t.Errorf("Publish over a file it did not write = %v", err)
	}
	if data, _ := os.ReadFile(theirs); string(data) != "someone else's" {
		t.Errorf("the file was changed: %q", data)
	}
	if _, err := os.Stat(filepath.Join(dir, IndexPath)); !os.IsNotExist(err) {
		t.Errorf("an index was written beside it: %v", err)
	}
	// Once skillsync's index names it, publishing again replaces it.
	if err := os.Remove(theirs); err != nil {
		t.Fatal(err)
	}
	if _, err := Publish(workspacefs.OS{}, dir, skills); err != nil {
		t.Fatal(err)
	}
	skills[0].Files[0].Data = []byte("#!/bin/sh\necho v2\n")
	written, err := Publish(workspacefs.OS{}, dir, skills)
	if err != nil || len(written) != 2 || written[1] != IndexPath {
		t.Errorf("Publish again = %v, %v; want the archive, then the index", written, err)
	}
	files, err := archive.Unpack(mustRead(t, theirs))
	if err != nil || len(files) != 2 || string(files[1].Data) != "#!/bin/sh\necho v2\n" || !files[1].Executable {
		t.Errorf("the archive published again = %+v, %v", files, err)
	}
	// An artifact someone edited since is kept, whatever the index says.
	published := mustRead(t, theirs)
	if err := os.WriteFile(theirs, append(slices.Clone(published), "edited\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	skills[0].Files[0].Data = []byte("#!/bin/sh\necho v3\n")
	if _, err := Publish(workspacefs.OS{}, dir, skills); err == nil || !strings.Contains(err.Error(), "deploy.tar.gz was edited since skillsync published it") {
		t.Errorf("Publish over an artifact edited since = %v", err)
	}
	if data := mustRead(t, theirs); string(data) != string(published)+"edited\n" {
		t.Error("the edited artifact was changed")
	}
}

func tarGz(t *testing.T, files ...registry.SupportFile) []byte {
	data, err := archive.TarGz(files, "")
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func mustRead(t *testing.T, p string) []byte {
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return data
}
