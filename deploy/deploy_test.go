//go:build linux

// Package deploy_test checks the container files by construction (no Docker engine
// runs here); image_test.go checks, under the image tag (make cross), the
// process-level contract they rely on.
package deploy_test

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	yaml "go.yaml.in/yaml/v3"
)

// stage is what a runtime stage of the Dockerfile sets.
type stage struct {
	from, user  string
	entrypoint  []string
	env         map[string]string
	healthcheck string
}

// dockerfile holds the build commands, each named stage, and the final one (the
// default target) in its fields.
type dockerfile struct {
	buildFrom string // the first stage's FROM
	build     string
	stage
	stages map[string]stage
}

func readDockerfile(t *testing.T) dockerfile {
	t.Helper()
	f, err := os.Open("../Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	d := dockerfile{stages: map[string]stage{}}
	name := ""
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		for strings.HasSuffix(line, "\\") && sc.Scan() {
			line = strings.TrimSuffix(line, "\\") + " " + strings.TrimSpace(sc.Text())
		}
		inst, rest, _ := strings.Cut(line, " ")
		switch inst {
		case "FROM":
			if d.buildFrom == "" {
				d.buildFrom = rest
			}
			from, as, _ := strings.Cut(rest, " AS ")
			d.stage, name = stage{from: from, env: map[string]string{}}, as
		case "USER":
			d.user = rest
		case "RUN":
			d.build += rest + "\n"
		case "ENTRYPOINT":
			if err := json.Unmarshal([]byte(rest), &d.entrypoint); err != nil {
				t.Fatalf("ENTRYPOINT is not exec form: %v", err)
			}
		case "CMD":
			t.Errorf("CMD %s: arguments given to docker run would replace it; defaults belong in ENV", rest)
		case "ENV":
			for _, kv := range strings.Fields(rest) {
				k, v, _ := strings.Cut(kv, "=")
				d.env[k] = v
			}
		case "HEALTHCHECK":
			d.healthcheck = rest
		}
		if name != "" {
			d.stages[name] = d.stage
		}
	}
	return d
}

func TestDockerfile(t *testing.T) {
	d := readDockerfile(t)
	if !strings.Contains(d.from, "distroless/static") {
		t.Errorf("final stage %q is not a static distroless base", d.from)
	}
	// The variant with Node runs as the static image does.
	node, ok := d.stages["node"]
	if !ok || !strings.HasPrefix(node.from, "node:") {
		t.Errorf("no node target on a Node image: %+v", node)
	}
	for name, s := range map[string]stage{"final": d.stage, "node": node} {
		if s.user == "" || strings.HasPrefix(s.user, "0") || strings.HasPrefix(s.user, "root") {
			t.Errorf("%s stage runs as %q, not a non-root user", name, s.user)
		}
		if strings.Join(s.entrypoint, " ") != "skillsync reconcile --watch" {
			t.Errorf("%s stage's ENTRYPOINT = %q", name, s.entrypoint)
		}
		if s.healthcheck != d.healthcheck {
			t.Errorf("%s stage's HEALTHCHECK %q differs from %q", name, s.healthcheck, d.healthcheck)
		}
		for _, k := range []string{"SKILLSYNC_WORKSPACE", "SKILLSYNC_HEALTH_ADDR", "SKILLSYNC_LOG_FORMAT"} {
			if s.env[k] != d.env[k] {
				t.Errorf("%s stage's %s=%q differs from %q", name, k, s.env[k], d.env[k])
			}
		}
	}
	if !strings.Contains(d.build, "CGO_ENABLED=0") {
		t.Error("the build stage does not build a static binary (CGO_ENABLED=0)")
	}
	// One Dockerfile for linux/amd64 and linux/arm64: the build stage runs on the
	// builder's platform and cross-compiles for the target's.
	if !strings.HasPrefix(d.buildFrom, "--platform=$BUILDPLATFORM ") || !strings.Contains(d.build, "GOOS=$TARGETOS GOARCH=$TARGETARCH go build") {
		t.Errorf("the build stage (FROM %s) does not cross-compile for $TARGETOS/$TARGETARCH:\n%s", d.buildFrom, d.build)
	}
	for _, v := range []string{"main.version=${VERSION}", "main.commit=${COMMIT}", "main.date=${DATE}"} {
		if !strings.Contains(d.build, v) {
			t.Errorf("the build does not set %s", v)
		}
	}
	if !strings.Contains(d.healthcheck, `"skillsync", "probe"`) || !strings.Contains(d.healthcheck, "127.0.0.1"+d.env["SKILLSYNC_HEALTH_ADDR"]+"/healthz") {
		t.Errorf("HEALTHCHECK %q does not probe /healthz where the image serves it (%q)", d.healthcheck, d.env["SKILLSYNC_HEALTH_ADDR"])
	}
	if d.env["SKILLSYNC_WORKSPACE"] != "/workspace" || d.env["SKILLSYNC_LOG_FORMAT"] != "json" {
		t.Errorf("ENV = %v", d.env)
	}
}

func readYAML(t *testing.T, path string, out any) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(data, out); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

func TestDevcontainer(t *testing.T) {
	var dc struct {
		DockerComposeFile, Service, WorkspaceFolder string
	}
	data, err := os.ReadFile("devcontainer/devcontainer.json")
	if err != nil || json.Unmarshal(data, &dc) != nil {
		t.Fatalf("devcontainer.json: %v", err)
	}
	var compose struct {
		Services map[string]struct {
			Image       string
			Init        bool
			ReadOnly    bool `yaml:"read_only"`
			User        string
			Volumes     []string
			Healthcheck struct{ Test []string }
		}
	}
	readYAML(t, filepath.Join("devcontainer", dc.DockerComposeFile), &compose)
	dev, sidecar := compose.Services[dc.Service], compose.Services["skillsync"]
	if !sidecar.Init || !sidecar.ReadOnly || sidecar.User == "" {
		t.Errorf("skillsync service: init=%v read_only=%v user=%q, want init, a read-only root and the workspace owner", sidecar.Init, sidecar.ReadOnly, sidecar.User)
	}
	if !strings.Contains(strings.Join(sidecar.Healthcheck.Test, " "), "skillsync probe http://127.0.0.1"+readDockerfile(t).env["SKILLSYNC_HEALTH_ADDR"]+"/healthz") {
		t.Errorf("health check %q does not probe where the image serves", sidecar.Healthcheck.Test)
	}
	// Copied to <workspace>/.devcontainer/, ".." is the workspace root that holds
	// skillsync.yaml; both services must mount it at the workspace folder.
	if mount := workspaceMount(dev.Volumes, dc.WorkspaceFolder); mount != ".." || mount != workspaceMount(sidecar.Volumes, dc.WorkspaceFolder) {
		t.Errorf("dev and skillsync do not share the workspace root at %s: %v vs %v", dc.WorkspaceFolder, dev.Volumes, sidecar.Volumes)
	}
	if sidecar.Image != kubernetesImage(t) {
		t.Errorf("compose image %q differs from the pod's %q", sidecar.Image, kubernetesImage(t))
	}
}

// workspaceMount returns the host side of the volume mounted at target.
func workspaceMount(volumes []string, target string) string {
	for _, v := range volumes {
		parts := strings.Split(v, ":")
		if len(parts) >= 2 && parts[1] == target {
			return parts[0]
		}
	}
	return ""
}
