package oci

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/skillsync/skillsync/desired/registry"
	"github.com/skillsync/skillsync/sources/archive"
)

func dockerConfig(t *testing.T, host, auth string) {
	dockerConfigEntry(t, host, "auth", auth)
}

// dockerConfigEntry stores value as field (auth, identitytoken) of the Docker
// configuration's entry for host.
func dockerConfigEntry(t *testing.T, host, field, value string) {
	dir := t.TempDir()
	config := `{"auths": {"` + host + `": {"` + field + `": "` + value + `"}}}`
	if err := os.WriteFile(filepath.Join(dir, "config.json"), []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("DOCKER_CONFIG", dir)
}

func TestACredentialThatCannotBeReadIsNotPrinted(t *testing.T) {
	reg := start(t)
	reg.RequireLogin("robot", "s3cret")
	dockerConfig(t, reg.Host, base64.StdEncoding.EncodeToString([]byte("ghp_TOPSECRETTOKEN")))
	_, err := NewReader(Cache{Dir: t.TempDir()}).Resolve(registry.RemoteSource{Name: "x", OCI: reg.Host + "/acme/skills:1"})
	if err == nil || strings.Contains(err.Error(), "TOPSECRET") || !strings.Contains(err.Error(), "credential for "+reg.Host+" cannot be read") {
		t.Errorf("err = %v", err)
	}
}

// tokenService answers every /v2/ request with a Bearer challenge whose realm
// is realm, and records the Authorization of every request for a token.
type tokenService struct {
	srv   *httptest.Server
	mu    sync.Mutex
	given []string
}

func newTokenService(t *testing.T, realm func(srv *httptest.Server) string) *tokenService {
	ts := &tokenService{}
	ts.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/token") {
			ts.mu.Lock()
			body, _ := io.ReadAll(r.Body)
			ts.given = append(ts.given, r.Host+" "+r.Header.Get("Authorization")+" "+string(body))
			ts.mu.Unlock()
			w.Write([]byte(`{"token": "t"}`))
			return
		}
		if r.Header.Get("Authorization") != "Bearer t" {
			w.Header().Set("WWW-Authenticate", `Bearer realm="`+realm(ts.srv)+`",service="registry",scope="repository:acme/skills:pull"`)
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		http.NotFound(w, r)
	}))
	t.Cleanup(ts.srv.Close)
	return ts
}

func TestTheCredentialGoesToNoOtherSite(t *testing.T) {
	elsewhere := newTokenService(t, func(*httptest.Server) string { return "http://tokens.elsewhere.test/token" })
	host := strings.TrimPrefix(elsewhere.srv.URL, "http://")
	dockerConfig(t, host, base64.StdEncoding.EncodeToString([]byte("robot:s3cret")))
	// Every name resolves to the test server, as a hostile DNS could make it.
	dial := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
		return (&net.Dialer{}).DialContext(ctx, network, host)
	}}}
	_, err := NewReader(Cache{Dir: t.TempDir(), Client: dial}).Resolve(registry.RemoteSource{Name: "x", OCI: host + "/acme/skills:1"})
	if err == nil || !strings.Contains(err.Error(), "which is not its own site; refused") {
		t.Errorf("a realm on another site = %v", err)
	}
	if len(elsewhere.given) > 0 {
		t.Errorf("the token service elsewhere was sent %q", elsewhere.given)
	}
	// An identity token (what docker login stores for registries that use
	// OAuth2) goes in the body of a token request, not in a header.
	dockerConfigEntry(t, host, "identitytoken", "IDENTITY-TOKEN")
	_, err = NewReader(Cache{Dir: t.TempDir(), Client: dial}).Resolve(registry.RemoteSource{Name: "x", OCI: host + "/acme/skills:1"})
	if err == nil || !strings.Contains(err.Error(), "which is not its own site; refused") {
		t.Errorf("an identity token, a realm on another site = %v", err)
	}
	if len(elsewhere.given) > 0 {
		t.Errorf("the token service elsewhere was sent %q", elsewhere.given)
	}

	// A realm on the registry's own host gets it.
	own := newTokenService(t, func(srv *httptest.Server) string { return srv.URL + "/token" })
	host = strings.TrimPrefix(own.srv.URL, "http://")
	dockerConfig(t, host, base64.StdEncoding.EncodeToString([]byte("robot:s3cret")))
	NewReader(Cache{Dir: t.TempDir()}).Resolve(registry.RemoteSource{Name: "x", OCI: host + "/acme/skills:1"})
	if len(own.given) == 0 || !strings.Contains(own.given[0], "Basic "+base64.StdEncoding.EncodeToString([]byte("robot:s3cret"))) {
		t.Errorf("the registry's own token service was sent %q", own.given)
	}
	dockerConfigEntry(t, host, "identitytoken", "IDENTITY-TOKEN")
	NewReader(Cache{Dir: t.TempDir()}).Resolve(registry.RemoteSource{Name: "x", OCI: host + "/acme/skills:1"})
	if last := own.given[len(own.given)-1]; !strings.Contains(last, "refresh_token=IDENTITY-TOKEN") {
		t.Errorf("the registry's own token service was sent %q for an identity token", last)
	}

	for _, tc := range []struct {
		registry, host string
		want           bool
	}{
		{"registry-1.docker.io", "auth.docker.io", true},
		{"ghcr.io", "ghcr.io", true},
		{"registry.gitlab.com", "gitlab.com", true},
		{"registry.example.com", "tokens.example.net", false},
		{"a.s3.amazonaws.com", "b.s3.amazonaws.com", false},
		{"127.0.0.1", "127.0.0.2", false},
		{"registry.example.com", "127.0.0.1", false},
	} {
		if got := sameSite(tc.registry, tc.host); got != tc.want {
			t.Errorf("sameSite(%s, %s) = %v", tc.registry, tc.host, got)
		}
	}
}

func TestAnArtifactBeyondTheLimitsIsRefused(t *testing.T) {
	m := ocispec.Manifest{MediaType: ocispec.MediaTypeImageManifest, ArtifactType: ArtifactType, Config: ocispec.DescriptorEmptyJSON}
	for i := range archive.MaxSourceSkills + 1 {
		m.Layers = append(m.Layers, ocispec.Descriptor{MediaType: LayerMediaType, Digest: digest.FromString(fmt.Sprint(i)), Size: 10,
			Annotations: map[string]string{ocispec.AnnotationTitle: fmt.Sprintf("s%d", i)}})
	}
	data, _ := json.Marshal(m)
	if _, err := readManifest(data); err == nil || !strings.Contains(err.Error(), "at most 10000 are read") {
		t.Errorf("a manifest of %d layers = %v", len(m.Layers), err)
	}

	// One layer read as two skills: the memo does not stand for the second.
	reg := start(t)
	c := anonymous(t)
	reference := reg.Host + "/acme/twice:1"
	layer := skillTarGz(t, "a", registry.SupportFile{Path: "SKILL.md", Data: []byte("---\nname: a\n---\n")})
	pushRaw(t, c, reference, ArtifactType, map[string][]byte{"a": layer}, nil)
	src := registry.RemoteSource{Name: "x", OCI: reference}
	r := NewReader(c)
	locked, err := r.Resolve(src)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.ReadSource(src, locked); err != nil {
		t.Fatal(err)
	}
	pushRaw(t, c, reg.Host+"/acme/twice:2", ArtifactType, map[string][]byte{"b": layer}, nil)
	src.OCI = reg.Host + "/acme/twice:2"
	if locked, err = r.Resolve(src); err == nil {
		_, err = r.ReadSource(src, locked)
	}
	if err == nil || !strings.Contains(err.Error(), "outside its folder b") {
		t.Errorf("a layer read again under another title = %v", err)
	}
}

func skillTarGz(t *testing.T, root string, files ...registry.SupportFile) []byte {
	data, err := archive.TarGz(files, root)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func TestACacheThatCannotKeepABlobFailsNothing(t *testing.T) {
	reg := start(t)
	reference := reg.Host + "/acme/skills:1"
	pushed := push(t, anonymous(t), reference, catalog)
	blocked := filepath.Join(t.TempDir(), "a-file")
	if err := os.WriteFile(blocked, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	c := anonymous(t)
	c.Dir = blocked
	src := registry.RemoteSource{Name: "catalog", OCI: reference}
	if _, err := NewReader(c).ReadSource(src, registry.LockedSource{Name: "catalog", OCI: reference, Digest: pushed.Digest}); err != nil {
		t.Errorf("a read through a cache that cannot keep blobs = %v", err)
	}
}

func TestPushLeavesWhatItDidNotPushAlone(t *testing.T) {
	reg := start(t)
	c := anonymous(t)
	reference := reg.Host + "/acme/app:latest"
	if _, err := c.Push(context.Background(), ref(t, reference), nil, nil, nil); err == nil || !strings.Contains(err.Error(), "nothing to push") {
		t.Errorf("pushing nothing = %v", err)
	}
	pushRaw(t, c, reference, "application/vnd.example.image", map[string][]byte{"x": skillTarGz(t, "x", registry.SupportFile{Path: "SKILL.md", Data: []byte("x")})}, nil)
	repo, _ := c.repository(ref(t, reference))
	before, err := repo.Resolve(context.Background(), "latest")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Push(context.Background(), ref(t, reference), catalog, nil, nil); err == nil || !strings.Contains(err.Error(), `names a "application/vnd.example.image"`) {
		t.Errorf("pushing over another artifact = %v", err)
	}
	if after, _ := repo.Resolve(context.Background(), "latest"); after.Digest != before.Digest {
		t.Errorf("the tag moved from %s to %s", before.Digest, after.Digest)
	}
}

func TestRegistryFilesShareTheSourcesBudget(t *testing.T) {
	reg := start(t)
	c := anonymous(t)
	reference := reg.Host + "/acme/docs:1"
	m := ocispec.Manifest{MediaType: ocispec.MediaTypeImageManifest, ArtifactType: ArtifactType, Config: ocispec.DescriptorEmptyJSON}
	m.SchemaVersion = 2
	for i := range 40 {
		m.Layers = append(m.Layers, ocispec.Descriptor{MediaType: DocumentMediaType, Digest: digest.FromString(fmt.Sprint(i)), Size: maxDocumentSize,
			Annotations: map[string]string{ocispec.AnnotationTitle: fmt.Sprintf("registry/r%d.yaml", i)}})
	}
	data, _ := json.Marshal(m)
	repo, _ := c.repository(ref(t, reference))
	ctx := context.Background()
	if err := repo.PushReference(ctx, ocispec.Descriptor{MediaType: ocispec.MediaTypeImageManifest, Digest: digest.FromBytes(data), Size: int64(len(data))}, strings.NewReader(string(data)), "1"); err != nil {
		t.Fatal(err)
	}
	src := registry.RemoteSource{Name: "x", OCI: reference, Registry: []string{"registry/*.yaml"}}
	before := reg.Requests.Load()
	_, err := NewReader(c).ReadSource(src, registry.LockedSource{Name: "x", OCI: reference, Digest: digest.FromBytes(data).String()})
	if err == nil || !strings.Contains(err.Error(), "the registry files "+reference+" takes hold more than") {
		t.Errorf("640 MiB of registry files = %v", err)
	}
	if n := reg.Requests.Load() - before; n > 1 {
		t.Errorf("%d requests; want the manifest's alone", n)
	}
}
