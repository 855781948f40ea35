package oci

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2"
	"oras.land/oras-go/v2/content/file"
	"oras.land/oras-go/v2/registry/remote/auth"

	"github.com/skillsync/skillsync/desired/registry"
	"github.com/skillsync/skillsync/internal/testkit/ociregistry"
	"github.com/skillsync/skillsync/sources/archive"
)

var catalog = []archive.SkillDir{
	{Name: "deploy", Description: "Deploy.", SkillMD: []byte("---\nname: deploy\ndescription: Deploy.\n---\nRun scripts/go.sh.\n"),
		Files: []registry.SupportFile{{Path: "scripts/go.sh", Data: []byte("#!/bin/sh\necho go\n"), Executable: true},
			{Path: "assets/logo.png", Data: []byte{0x89, 'P', 'N', 'G', 0, 0xff, '\r', '\n'}}}},
	{Name: "review", Description: "Review.", SkillMD: []byte("---\nname: review\ndescription: Review.\n---\nRead the diff.\n")},
}

func start(t *testing.T) *ociregistry.Registry {
	r := ociregistry.Start()
	t.Cleanup(r.Close)
	return r
}

// anonymous is a cache that reads no Docker configuration.
func anonymous(t *testing.T) Cache {
	return Cache{Dir: filepath.Join(t.TempDir(), "cache"), Credential: auth.StaticCredential("", auth.EmptyCredential)}
}

func ref(t *testing.T, s string) registry.OCIReference {
	r, err := registry.ParseOCIReference(s)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func push(t *testing.T, c Cache, reference string, skills []archive.SkillDir) Pushed {
	t.Helper()
	p, err := c.Push(context.Background(), ref(t, reference), skills, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestAPushedArtifactIsReadPinnedAndCached(t *testing.T) {
	reg := start(t)
	c := anonymous(t)
	reference := reg.Host + "/acme/skills:1.0"
	pushed := push(t, c, reference, catalog)
	if again := push(t, c, reference, []archive.SkillDir{catalog[1], catalog[0]}); again.Digest != pushed.Digest || again.Sent != 0 {
		t.Errorf("pushing the same skills again = %+v, want digest %s and nothing sent", again, pushed.Digest)
	}
	src := registry.RemoteSource{Name: "catalog", OCI: reference}
	r := NewReader(c)
	locked, err := r.Resolve(src)
	if err != nil || locked.Digest != pushed.Digest || locked.OCI != reference {
		t.Fatalf("Resolve = %+v, %v; want the pushed digest %s", locked, err, pushed.Digest)
	}
	files, err := r.ReadSource(src, locked)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]registry.SourceFile{}
	for _, f := range files {
		got[f.Path] = f
	}
	for _, s := range catalog {
		for _, f := range s.All() {
			g, ok := got[s.Name+"/"+f.Path]
			if !ok || !bytes.Equal(g.Data, f.Data) || g.Executable != f.Executable {
				t.Errorf("%s/%s read as %+v", s.Name, f.Path, g)
			}
		}
	}
	if len(files) != 8 { // two skill folders, deploy's scripts and assets, four files
		t.Errorf("read %d entries: %+v", len(files), files)
	}

	// Another process, the same cache: no request at all.
	before := reg.Requests.Load()
	if _, err := NewReader(c).ReadSource(src, locked); err != nil || reg.Requests.Load() != before {
		t.Errorf("a read from a warm cache: %v, %d requests", err, reg.Requests.Load()-before)
	}
	offline := c
	offline.Offline = true
	if _, err := NewReader(offline).ReadSource(src, locked); err != nil {
		t.Errorf("offline with a warm cache: %v", err)
	}
	empty := anonymous(t)
	empty.Offline = true
	if _, err := NewReader(empty).ReadSource(src, locked); !errors.Is(err, ErrOffline) || !strings.Contains(err.Error(), pushed.Digest) {
		t.Errorf("offline with an empty cache = %v, want it to name %s", err, pushed.Digest)
	}
	if _, err := NewReader(offline).Resolve(src); !errors.Is(err, ErrOffline) {
		t.Errorf("resolving offline = %v", err)
	}

	// include reads only the skills taken.
	only := registry.RemoteSource{Name: "catalog", OCI: reference, Include: []string{"review"}}
	files, err = NewReader(anonymous(t)).ReadSource(only, registry.LockedSource{Name: "catalog", OCI: reference, Digest: pushed.Digest})
	if err != nil || len(files) != 2 || files[0].Path != "review" {
		t.Errorf("ReadSource of review alone = %+v, %v", files, err)
	}
	only.Include = []string{"absent"}
	if _, err := NewReader(c).Resolve(only); err == nil || !strings.Contains(err.Error(), "holds no skill absent") {
		t.Errorf("include of a skill the artifact lacks = %v", err)
	}

	// A tag moved to other skills does not move what the lock pins.
	push(t, c, reference, catalog[1:])
	files, err = NewReader(anonymous(t)).ReadSource(src, registry.LockedSource{Name: "catalog", OCI: reference, Digest: pushed.Digest, Skills: map[string]string{"deploy": "", "review": ""}})
	if err != nil || len(files) != 8 {
		t.Errorf("reading the pinned manifest after the tag moved = %d entries, %v", len(files), err)
	}

	tags, err := r.Tags(src)
	if err != nil || strings.Join(tags, ",") != "1.0" {
		t.Errorf("Tags = %v, %v", tags, err)
	}
}

// orasPull pulls reference as oras pull does, into dir.
func orasPull(t *testing.T, c Cache, reference, dir string) {
	t.Helper()
	fs, err := file.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer fs.Close()
	fs.PreservePermissions = true
	repo, err := c.repository(ref(t, reference))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := oras.Copy(context.Background(), repo, ref(t, reference).Reference, fs, "", oras.DefaultCopyOptions); err != nil {
		t.Fatal(err)
	}
}

func TestOrasPullUnpacksWhatPushWrote(t *testing.T) {
	reg := start(t)
	c := anonymous(t)
	reference := reg.Host + "/acme/skills:1.0"
	push(t, c, reference, catalog)
	dir := t.TempDir()
	orasPull(t, c, reference, dir)
	for _, s := range catalog {
		for _, f := range s.All() {
			p := filepath.Join(dir, s.Name, filepath.FromSlash(f.Path))
			data, err := os.ReadFile(p)
			if err != nil || !bytes.Equal(data, f.Data) {
				t.Errorf("oras pull wrote %s as %q, %v; want %q", p, data, err, f.Data)
			}
			if info, err := os.Stat(p); err == nil && (info.Mode()&0o100 != 0) != f.Executable {
				t.Errorf("oras pull wrote %s with mode %v", p, info.Mode())
			}
		}
	}
}

// pushRaw pushes a manifest of artifactType over layers given as bytes with
// their descriptors, as a hostile publisher could.
func pushRaw(t *testing.T, c Cache, reference, artifactType string, layers map[string][]byte, size func(int) int64) {
	t.Helper()
	r := ref(t, reference)
	repo, err := c.repository(r)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	m := ocispec.Manifest{MediaType: ocispec.MediaTypeImageManifest, ArtifactType: artifactType, Config: ocispec.DescriptorEmptyJSON}
	m.SchemaVersion = 2
	if err := repo.Push(ctx, ocispec.DescriptorEmptyJSON, bytes.NewReader(ocispec.DescriptorEmptyJSON.Data)); err != nil {
		t.Fatal(err)
	}
	for title, data := range layers {
		desc := ocispec.Descriptor{MediaType: LayerMediaType, Digest: digestOf(data), Size: int64(len(data)), Annotations: map[string]string{ocispec.AnnotationTitle: title}}
		if err := repo.Push(ctx, desc, bytes.NewReader(data)); err != nil {
			t.Fatal(err)
		}
		if size != nil {
			desc.Size = size(len(data))
		}
		m.Layers = append(m.Layers, desc)
	}
	data, _ := json.Marshal(m)
	if err := repo.PushReference(ctx, ocispec.Descriptor{MediaType: ocispec.MediaTypeImageManifest, Digest: digestOf(data), Size: int64(len(data))}, bytes.NewReader(data), r.Reference); err != nil {
		t.Fatal(err)
	}
}

func TestBadArtifactsAreRefused(t *testing.T) {
	reg := start(t)
	c := anonymous(t)
	tarGz := func(root string, files ...registry.SupportFile) []byte {
		data, err := archive.TarGz(files, root)
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	skillMD := registry.SupportFile{Path: "SKILL.md", Data: []byte("---\nname: x\n---\n")}
	for _, tc := range []struct {
		name, artifactType string
		layers             map[string][]byte
		size               func(int) int64
		want               string
	}{
		{"another artifact type", "application/vnd.example.thing", map[string][]byte{"x": tarGz("x", skillMD)}, nil, `is a "application/vnd.example.thing", not the skills`},
		{"a layer out of its folder", ArtifactType, map[string][]byte{"x": tarGz("y", skillMD)}, nil, "outside its folder x"},
		{"a path out", ArtifactType, map[string][]byte{"x": tarGz("x/../..", skillMD)}, nil, "no path inside the skill directory"},
		{"a title that is no name", ArtifactType, map[string][]byte{"../x": tarGz("x", skillMD)}, nil, `titled "../x", which is no skill name`},
		{"a layer said to be 1 GB", ArtifactType, map[string][]byte{"x": tarGz("x", skillMD)}, func(int) int64 { return 1 << 30 }, "at most 67108864 are read"},
		{"a layer shorter than said", ArtifactType, map[string][]byte{"x": tarGz("x", skillMD)}, func(n int) int64 { return int64(n) + 10 }, "skill x"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			reference := reg.Host + "/bad/" + strings.ToLower(strings.ReplaceAll(tc.name, " ", "-")) + ":1"
			pushRaw(t, c, reference, tc.artifactType, tc.layers, tc.size)
			src := registry.RemoteSource{Name: "bad", OCI: reference}
			r := NewReader(anonymous(t))
			locked, err := r.Resolve(src)
			if err == nil {
				_, err = r.ReadSource(src, locked)
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want %q", err, tc.want)
			}
		})
	}
}

func TestADamagedOrForgedBlobIsNeverRead(t *testing.T) {
	reg := start(t)
	c := anonymous(t)
	reference := reg.Host + "/acme/skills:1.0"
	pushed := push(t, c, reference, catalog)
	src := registry.RemoteSource{Name: "catalog", OCI: reference}
	locked := registry.LockedSource{Name: "catalog", OCI: reference, Digest: pushed.Digest}
	if _, err := NewReader(c).ReadSource(src, locked); err != nil {
		t.Fatal(err)
	}
	// A cached manifest that lost its bytes is fetched again, not trusted.
	cached := filepath.Join(c.Dir, "sha256", strings.TrimPrefix(pushed.Digest, "sha256:"))
	if err := os.WriteFile(cached, []byte(`{"torn":`), 0o644); err != nil {
		t.Fatal(err)
	}
	before := reg.Requests.Load()
	if _, err := NewReader(c).ReadSource(src, locked); err != nil || reg.Requests.Load() == before {
		t.Errorf("a damaged cached manifest: %v, %d requests", err, reg.Requests.Load()-before)
	}
	// A lock pinned to a manifest the registry does not have.
	forged := locked
	forged.Digest = "sha256:" + strings.Repeat("0", 64)
	if _, err := NewReader(anonymous(t)).ReadSource(src, forged); err == nil || !strings.Contains(err.Error(), forged.Digest) {
		t.Errorf("a manifest the registry lacks = %v", err)
	}
	// The registry serves other bytes than the digest names.
	reg.Forge(pushed.Digest, []byte(`{"schemaVersion":2}`))
	if _, err := NewReader(anonymous(t)).ReadSource(src, locked); err == nil || !strings.Contains(err.Error(), "digest") {
		t.Errorf("a forged manifest = %v", err)
	}
}

func TestCredentialsGoToTheirRegistryAlone(t *testing.T) {
	private, other := start(t), start(t)
	private.RequireLogin("robot", "s3cret")
	dir := t.TempDir()
	basic := base64.StdEncoding.EncodeToString([]byte("robot:s3cret"))
	config := `{"auths": {"` + private.Host + `": {"auth": "` + basic + `"}}}`
	if err := os.WriteFile(filepath.Join(dir, "config.json"), []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("DOCKER_CONFIG", dir)
	c := Cache{Dir: filepath.Join(t.TempDir(), "cache")}
	push(t, c, private.Host+"/acme/skills:1", catalog)
	push(t, c, other.Host+"/acme/skills:1", catalog)
	for _, reg := range []*ociregistry.Registry{private, other} {
		src := registry.RemoteSource{Name: "catalog", OCI: reg.Host + "/acme/skills:1"}
		if _, err := NewReader(c).Resolve(src); err != nil {
			t.Errorf("%s: %v", reg.Host, err)
		}
	}
	if got := other.Authorizations(); len(got) > 0 {
		t.Errorf("the other registry was sent %q", got)
	}
	if got := private.Authorizations(); len(got) == 0 || !strings.Contains(strings.Join(got, " "), basic) {
		t.Errorf("the private registry was sent %q", got)
	}

	t.Setenv("DOCKER_CONFIG", t.TempDir())
	_, err := NewReader(Cache{Dir: c.Dir}).Resolve(registry.RemoteSource{Name: "catalog", OCI: private.Host + "/acme/skills:1"})
	if err == nil || !strings.Contains(err.Error(), "no credential for "+private.Host+"; log in with docker login or oras login") || strings.Contains(err.Error(), "s3cret") {
		t.Errorf("without credentials = %v", err)
	}
}

func TestNoCacheDirectoryIsAnError(t *testing.T) {
	reg := start(t)
	src := registry.RemoteSource{Name: "catalog", OCI: reg.Host + "/acme/skills:1"}
	if _, err := NewReader(Cache{}).Resolve(src); err == nil || !strings.Contains(err.Error(), "no user cache directory") {
		t.Errorf("Resolve without a cache = %v", err)
	}
}

func digestOf(data []byte) digest.Digest { return digest.FromBytes(data) }
