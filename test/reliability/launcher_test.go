//go:build reliability && linux

package reliability

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/skillsync/skillsync/internal/testkit"
)

// The peak RSS Linux reports for a process counts the memory of the process
// that started it: exec records the old address space's high-water mark, and
// os/exec starts a child inside the parent's address space. Started straight
// from this test binary, whose heap the earlier suites grew, a 20 MiB run reads
// as 200. So a measured run is started by a launcher, this same binary started
// afresh and small, which reports its child's figures on file descriptor 3.
const (
	// launchEnv makes this binary a launcher; its value is the uid to run the
	// child as, or empty for this one's own.
	launchEnv = "RELIABILITY_LAUNCH_AS"
	// launchFD is where the launcher writes "<maxrss KiB> <exit code> <signal>".
	launchFD = 3
)

// launched is how a launched run ended, as the launcher saw it.
type launched struct {
	maxRSS int64 // KiB
	code   int
	signal syscall.Signal // 0 when it exited by itself
}

// launch runs os.Args[1:] and reports how it ended; it is main when launchEnv is
// set. It returns the exit code the launcher ends with.
func launch() int {
	// Pdeathsig is bound to the thread that started the child: keep it.
	runtime.LockOSThread()
	attr := &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if as := os.Getenv(launchEnv); as != "self" {
		uid, err := strconv.Atoi(as)
		if err != nil {
			fmt.Fprintf(os.Stderr, "launcher: %s=%q is not a uid\n", launchEnv, as)
			return 125
		}
		attr.Credential = &syscall.Credential{Uid: uint32(uid), Gid: uint32(uid)}
	}
	cmd := exec.Command(os.Args[1], os.Args[2:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.SysProcAttr = attr
	err := cmd.Run()
	if cmd.ProcessState == nil {
		fmt.Fprintf(os.Stderr, "launcher: %v\n", err)
		return 125
	}
	ru, _ := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	ws, _ := cmd.ProcessState.Sys().(syscall.WaitStatus)
	var signal syscall.Signal
	if ws.Signaled() {
		signal = ws.Signal()
	}
	report := os.NewFile(launchFD, "report")
	fmt.Fprintf(report, "%d %d %d", ru.Maxrss, cmd.ProcessState.ExitCode(), signal)
	report.Close()
	return 0
}

// throughLauncher makes cmd run through a launcher, as uid (or as this
// process's user when uid is negative); ended reads the launcher's report once
// cmd has run, and says false when there is none.
func throughLauncher(cmd *exec.Cmd, uid int) (ended func() (launched, bool), err error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	read, write, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	as := "self"
	if uid >= 0 {
		as = strconv.Itoa(uid)
	}
	cmd.Args = append([]string{self, cmd.Path}, cmd.Args[1:]...)
	cmd.Path = self
	cmd.Env = append(os.Environ(), launchEnv+"="+as)
	cmd.ExtraFiles = []*os.File{write}
	return func() (launched, bool) {
		write.Close()
		defer read.Close()
		data, _ := io.ReadAll(read)
		return parseLaunched(string(data))
	}, nil
}

func parseLaunched(report string) (launched, bool) {
	fields := strings.Fields(report)
	if len(fields) != 3 {
		return launched{}, false
	}
	maxRSS, err1 := strconv.ParseInt(fields[0], 10, 64)
	code, err2 := strconv.Atoi(fields[1])
	signal, err3 := strconv.Atoi(fields[2])
	if err1 != nil || err2 != nil || err3 != nil {
		return launched{}, false
	}
	return launched{maxRSS: maxRSS, code: code, signal: syscall.Signal(signal)}, true
}

// A launched run's peak is its own, however much this process holds: started
// straight from here, the same run is charged this process's heap.
func TestLaunchedRunsAreChargedTheirOwnMemory(t *testing.T) {
	ballast := make([]byte, 2*maxRSS<<10)
	for i := range ballast {
		ballast[i] = 1 // resident, not only reserved
	}
	bin := testkit.Binary(t)
	direct := exec.Command(bin, "version")
	if err := direct.Run(); err != nil {
		t.Fatalf("%s version: %v", bin, err)
	}
	directRSS := direct.ProcessState.SysUsage().(*syscall.Rusage).Maxrss
	viaLauncher := exec.Command(bin, "version")
	ended, err := throughLauncher(viaLauncher, -1)
	if err != nil {
		t.Fatal(err)
	}
	if err := viaLauncher.Run(); err != nil {
		t.Fatalf("launched %s version: %v", bin, err)
	}
	run, ok := ended()
	runtime.KeepAlive(ballast)
	if !ok || run.code != 0 {
		t.Fatalf("launcher report %+v, ok=%v; want exit 0", run, ok)
	}
	if directRSS <= maxRSS {
		t.Errorf("started straight from a test holding %d MiB, a run was charged %d MiB: the ballast is not resident", len(ballast)>>20, directRSS>>10)
	}
	if run.maxRSS > maxRSS {
		t.Errorf("launched, a run was charged %d MiB, over %d MiB: the launcher passed this process's heap on", run.maxRSS>>10, maxRSS>>10)
	}
	t.Logf("skillsync version: %d MiB launched, %d MiB started straight from a test holding %d MiB", run.maxRSS>>10, directRSS>>10, len(ballast)>>20)
}
