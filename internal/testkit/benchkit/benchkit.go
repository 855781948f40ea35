package benchkit

import (
	"bytes"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strings"
	"time"
)

// Build builds the main package pkg into the executable out with go build, run
// in dir ("" for the current directory), flags before -o and env added to the
// environment. Its error holds what go build said.
func Build(dir, out, pkg string, env []string, flags ...string) error {
	cmd := exec.Command("go", slices.Concat([]string{"build"}, flags, []string{"-o", out, pkg})...)
	cmd.Dir = dir
	if len(env) > 0 {
		cmd.Env = append(os.Environ(), env...)
	}
	if output, err := cmd.CombinedOutput(); err != nil {
		what := "go build " + pkg
		if len(env) > 0 {
			what += " (" + strings.Join(env, " ") + ")"
		}
		return fmt.Errorf("%s: %v\n%s", what, err, output)
	}
	return nil
}

// BuildAsReleased builds skillsync's command into out as the release does
// (.goreleaser.yaml): without cgo, with -trimpath, and without the symbol table
// and DWARF, so that a benchmark measures the binary people run (a build with
// cgo maps the C library too, and is bigger: about 1.5 MB more peak RSS).
func BuildAsReleased(out string) error {
	return Build("", out, "./cmd/skillsync", releaseEnv, releaseFlags...)
}

var (
	releaseEnv   = []string{"CGO_ENABLED=0"}
	releaseFlags = []string{"-trimpath", "-ldflags=-s -w"}
)

// FreeAddr is an address on 127.0.0.1 whose port was free a moment ago, for a
// server to listen on.
func FreeAddr() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer ln.Close()
	return ln.Addr().String(), nil
}

// Ready polls url every 10 ms until it answers 200 OK, for at most timeout, and
// says whether it did. A server not yet listening is not an error: it is polled
// again.
func Ready(url string, timeout time.Duration) bool {
	for deadline := time.Now().Add(timeout); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if resp, err := http.Get(url); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return true
			}
		}
	}
	return false
}

// AwaitReady waits up to a minute for the watcher serving its health on addr to
// answer /readyz with 200, and stops the program if it does not.
func AwaitReady(addr string) {
	if !Ready("http://"+addr+"/readyz", time.Minute) {
		fail("watcher never became ready")
	}
}

// AwaitText waits until the file at path holds text, reading it every 200 µs,
// and stops the program if it does not by deadline.
func AwaitText(path, text string, deadline time.Time) {
	for {
		if data, err := os.ReadFile(path); err == nil && bytes.Contains(data, []byte(text)) {
			return
		}
		if time.Now().After(deadline) {
			fail(fmt.Sprintf("%s never held %q", path, text))
		}
		time.Sleep(200 * time.Microsecond)
	}
}

// scratch is the directory ScratchDir made: a program stopped by Check or Must
// removes it, as its deferred removal does not run then, and the workspaces of
// a failed benchmark can fill the disk the next one needs.
var scratch string

// ScratchDir makes the directory a bench program keeps its workspaces in, whose
// name begins with prefix, or stops the program. The program removes it when it
// ends; Check and Must remove it when they stop the program.
func ScratchDir(prefix string) string {
	dir, err := os.MkdirTemp("", prefix)
	Check(err)
	scratch = dir
	return dir
}

// Check stops the program with err, if there is one.
func Check(err error) {
	if err != nil {
		fail(err.Error())
	}
}

// Must is v, or stops the program with err.
func Must[T any](v T, err error) T {
	Check(err)
	return v
}

func fail(message string) {
	fmt.Fprintln(os.Stderr, message)
	if scratch != "" {
		os.RemoveAll(scratch)
	}
	os.Exit(1)
}

// Percentile is the p-th percentile of ds (p from 0 to 100) by the
// nearest-rank method; ds is left as it is.
func Percentile(ds []time.Duration, p int) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	i := (len(s)*p+99)/100 - 1
	return s[max(0, min(i, len(s)-1))]
}

// Ms is d in milliseconds with one decimal, as the bench tables show it.
func Ms(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d.Microseconds())/1000) }
