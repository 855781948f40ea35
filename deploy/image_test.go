//go:build linux && image

package deploy_test

import (
	"debug/elf"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/skillsync/skillsync/internal/syncbuffer"
	"github.com/skillsync/skillsync/internal/testkit"
)

// The process-level contract the container files rely on: the binary the
// Dockerfile builds is static, and run as its ENTRYPOINT and CMD, as a non-root
// user, with no HOME or TMPDIR, it converges a workspace, serves its probes and
// stops on SIGTERM. Each test builds the binary as the image does, statically and
// for two machines, which takes minutes on a small machine: make cross runs
// them, make test does not.

// TestImageProcessContract builds the binary the way the Dockerfile does and runs it
// the way the image does.
func TestImageProcessContract(t *testing.T) {
	d := readDockerfile(t)
	bin := imageBinary(t)
	assertStatic(t, bin)

	ws := testkit.ExampleWorkspace(t)
	addr := testkit.FreeAddr(t)
	cmd := exec.Command(bin, d.entrypoint[1:]...)
	cmd.Dir = "/"
	cmd.Env = []string{"PATH=/nonexistent", "HOME=/nonexistent", "TMPDIR=/nonexistent"}
	for k, v := range d.env { // the image's environment, pointed at this test's workspace and port
		v = strings.NewReplacer("/workspace", ws, d.env["SKILLSYNC_HEALTH_ADDR"], addr).Replace(v)
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	if os.Getuid() == 0 { // run as the image's non-root user, owning only the workspace
		chownAll(t, ws, 65532)
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65532, Gid: 65532}}
	}
	var logs syncbuffer.Buffer
	cmd.Stderr = &logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()

	testkit.AwaitReady(t, "http://"+addr+"/readyz", 30*time.Second, &logs)
	if _, err := os.Stat(filepath.Join(ws, ".claude/skills/intent/SKILL.md")); err != nil {
		t.Errorf("ready before converging: %v", err)
	}
	if out, err := exec.Command(bin, "probe", "http://"+addr+"/healthz").CombinedOutput(); err != nil {
		t.Errorf("the image's health check fails: %v %s", err, out)
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Errorf("exit after SIGTERM: %v\n%s", err, logs.String())
	}
	for _, line := range strings.Split(strings.TrimSpace(logs.String()), "\n") {
		if !json.Valid([]byte(line)) {
			t.Errorf("--log-format json wrote a line that is not JSON: %q", line)
		}
	}
}

// The image's binary for each platform the Dockerfile builds is static and for
// that machine; the arm64 one is built here as buildx would build it, by
// cross-compiling on this machine.
func TestImageBinaryForEachPlatform(t *testing.T) {
	for arch, machine := range map[string]elf.Machine{"amd64": elf.EM_X86_64, "arm64": elf.EM_AARCH64} {
		bin := imageBinary(t, "GOOS=linux", "GOARCH="+arch)
		assertStatic(t, bin)
		f, err := elf.Open(bin)
		if err != nil {
			t.Fatal(err)
		}
		if f.Machine != machine {
			t.Errorf("linux/%s binary is for %v", arch, f.Machine)
		}
		f.Close()
	}
}

// imageBinary builds skillsync as the Dockerfile does, env added to its
// environment.
func imageBinary(t *testing.T, env ...string) string {
	t.Helper()
	return testkit.Build(t, "./cmd/skillsync", append([]string{"CGO_ENABLED=0"}, env...), "-trimpath", "-ldflags", "-s -w")
}

func assertStatic(t *testing.T, bin string) {
	t.Helper()
	f, err := elf.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			t.Error("binary needs a dynamic loader; the distroless static image has none")
		}
	}
	if libs, _ := f.ImportedLibraries(); len(libs) > 0 {
		t.Errorf("binary links %v", libs)
	}
}

func chownAll(t *testing.T, dir string, uid int) {
	t.Helper()
	// The non-root user must be able to reach the workspace through t.TempDir's parents.
	for d := filepath.Dir(dir); d != os.TempDir() && d != filepath.Dir(d); d = filepath.Dir(d) {
		os.Chmod(d, 0o755)
	}
	filepath.Walk(dir, func(p string, _ os.FileInfo, err error) error {
		if err == nil {
			err = os.Lchown(p, uid, uid)
		}
		return err
	})
}
