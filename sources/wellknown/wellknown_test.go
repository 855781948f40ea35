package wellknown

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/skillsync/skillsync/desired/registry"
	"github.com/skillsync/skillsync/internal/workspacefs"
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
	return fmt.Sprintf(`{"name": %q, "type": %q, "description": "The %s skill.", "url": %q, "digest": %q}`, name, typ, name, url, digestOf(data))
}

type archived struct {
	name, body string
	mode       int64
	link       string
}

func makeTarGz(t *testing.T, entries ...archived) []byte {
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for _, e := range entries {
		h := &tar.Header{Name: e.name, Mode: e.mode, Size: int64(len(e.body)), Typeflag: tar.TypeReg}
		if h.Mode == 0 {
			h.Mode = 0o644
		}
		if e.link != "" {
			h.Typeflag, h.Linkname, h.Size = tar.TypeSymlink, e.link, 0
		}
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		if e.link == "" {
			tw.Write([]byte(e.body))
		}
	}
	tw.Close()
	gz.Close()
	return buf.Bytes()
}

func zipOf(t *testing.T, entries ...archived) []byte {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, e := range entries {
		h := &zip.FileHeader{Name: e.name, Method: zip.Deflate}
		mode := os.FileMode(0o644)
		if e.mode != 0 {
			mode = os.FileMode(e.mode)
		}
		if e.link != "" {
			mode = os.ModeSymlink | 0o777
		}
		h.SetMode(mode)
		w, err := zw.CreateHeader(h)
		if err != nil {
			t.Fatal(err)
		}
		if e.link != "" {
			w.Write([]byte(e.link))
		} else {
			w.Write([]byte(e.body))
		}
	}
	zw.Close()
	return buf.Bytes()
}

func TestAnIndexSourceIsReadPinnedAndCached(t *testing.T) {
	skillMD := []byte("---\nname: greet\ndescription: Greet.\n---\nSay hello.\n")
	archive := makeTarGz(t, archived{name: "SKILL.md", body: "---\nname: deploy\ndescription: Deploy.\n---\nRun scripts/go.sh.\n"},
		archived{name: "scripts/go.sh", body: "#!/bin/sh\necho go\n", mode: 0o755})
	s := newSite(t, map[string][]byte{
		"/greet/SKILL.md": skillMD,
		"/deploy.tar.gz":  archive,
	})
	// Relative URLs resolve against the index's, as RFC 3986 says.
	s.files["/.well-known/agent-skills/index.json"] = index(entry("greet", "skill-md", "../../greet/SKILL.md", skillMD), entry("deploy", "archive", "/deploy.tar.gz", archive))
	r := NewReader(s.cache(t))
	src := registry.RemoteSource{Name: "docs", Index: s.url("/.well-known/agent-skills/index.json")}
	locked, err := r.Resolve(src)
	if err != nil {
		t.Fatal(err)
	}
	if locked.Artifacts["greet"].URL != s.url("/greet/SKILL.md") || locked.Digest != digestOf(s.files["/.well-known/agent-skills/index.json"]) {
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
	s.files["/deploy.tar.gz"] = makeTarGz(t, archived{name: "SKILL.md", body: "changed"})
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
	_, err := c.Artifact(context.Background(), registry.Artifact{Type: registry.ArtifactSkillMD, URL: s.url("/a.md"), Digest: digestOf([]byte("x"))})
	if err == nil || !strings.Contains(err.Error(), "a redirect from https:// to http://") {
		t.Errorf("a redirect to http on this machine = %v", err)
	}
}

func TestUnpackRefusesWhatCouldEscapeOrFillTheDisk(t *testing.T) {
	many := []archived{}
	for i := range registry.MaxSkillEntries + 1 {
		many = append(many, archived{name: fmt.Sprintf("f%d", i), body: "x"})
	}
	bomb := archived{name: "zeros.bin", body: strings.Repeat("\x00", 17<<20)}
	for _, tc := range []struct {
		name string
		data []byte
		want string
	}{
		{"parent", makeTarGz(t, archived{name: "../evil", body: "x"}), "no path inside"},
		{"absolute", makeTarGz(t, archived{name: "/etc/evil", body: "x"}), "no path inside"},
		{"deep parent", zipOf(t, archived{name: "a/../../evil", body: "x"}), "no path inside"},
		{"backslash", zipOf(t, archived{name: "a\\..\\evil", body: "x"}), "no path inside"},
		{"twice", makeTarGz(t, archived{name: "a", body: "x"}, archived{name: "./a", body: "y"}), "twice"},
		{"too many", makeTarGz(t, many...), "more than 1000 files"},
		{"bomb, tar", makeTarGz(t, bomb), "larger than"},
		{"bomb, zip", zipOf(t, bomb), "larger than"},
		{"neither", []byte("plain text"), "neither a .tar.gz nor a .zip"},
		{"a file and a folder", makeTarGz(t, archived{name: "a", body: "x"}, archived{name: "a/b", body: "y"}), "holds a as a file and as a folder"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Unpack(tc.data)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Unpack = %v, want %q", err, tc.want)
			}
		})
	}
	// A folder may come after the files in it, as zip tools write it.
	if files, err := Unpack(zipOf(t, archived{name: "scripts/run.sh", body: "x"}, archived{name: "scripts/"})); err != nil || len(files) != 2 {
		t.Errorf("Unpack of a folder after its file = %+v, %v", files, err)
	}
	// A link is kept as one, for the registry to refuse at its path.
	for _, data := range [][]byte{makeTarGz(t, archived{name: "SKILL.md", body: "x"}, archived{name: "out", link: "/etc/passwd"}),
		zipOf(t, archived{name: "SKILL.md", body: "x"}, archived{name: "out", link: "/etc/passwd"})} {
		files, err := Unpack(data)
		if err != nil || len(files) != 2 || !files[1].Link || files[1].Data != nil {
			t.Errorf("Unpack of a link = %+v, %v", files, err)
		}
	}
}

func TestPublishKeepsWhatItDidNotWrite(t *testing.T) {
	skills := []Published{{Name: "deploy", Description: "Deploy.", SkillMD: []byte("---\nname: deploy\n---\n"),
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
	files, err := Unpack(mustRead(t, theirs))
	if err != nil || len(files) != 2 || string(files[1].Data) != "#!/bin/sh\necho v2\n" || !files[1].Executable {
		t.Errorf("the archive published again = %+v, %v", files, err)
	}
}

func mustRead(t *testing.T, p string) []byte {
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return data
}
