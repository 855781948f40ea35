package mcp

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/skillsync/skillsync/internal/printable"
)

// stopGrace is how long a stdio server is given to exit once its input is
// closed, and again after SIGTERM, before it is killed, as the SDK gives it; a
// deadline cuts it short.
const stopGrace = 5 * time.Second

// The end of a server's stderr kept for an error: a failing server says why
// there, and more would bury the error.
const (
	stderrLines = 20
	stderrBytes = 4 << 10
)

// commandTransport runs a stdio server, as the SDK's CommandTransport does, and
// keeps what an error says of a server that fails: how it exited, and the end of
// its stderr. It owns the process, so that it can be killed at once when the time
// given to the server is up, where the SDK's would wait out its grace periods.
type commandTransport struct {
	cmd    *exec.Cmd
	stderr tail
	exited chan struct{} // closed once the process is reaped

	mu      sync.Mutex
	started bool
	killed  bool // kill was called; a process started after it is killed at once
	// hungUp is set when the server closed its stdout, or refused a write to its
	// stdin, before skillsync began to stop it: it went away on its own, and how
	// it exited says why. One that exits at once refuses the session's first
	// write, which may come before its stdout is seen to end.
	hungUp, stopping, signalled bool
	exit                        string // how the process ended, once reaped
	stdin                       io.WriteCloser
	stdout                      *os.File
}

func newCommandTransport(cmd *exec.Cmd) *commandTransport {
	return &commandTransport{cmd: cmd, exited: make(chan struct{})}
}

// Connect starts the command and speaks to it over its stdin and stdout.
func (t *commandTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	// Its own pipe for stdout, not StdoutPipe: the reaper below may run before
	// the last answer is read, and must not close it.
	stdout, child, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	t.cmd.Stdout, t.cmd.Stderr = child, &t.stderr
	// A process that leaves a child holding stderr open is not waited for long.
	t.cmd.WaitDelay = time.Second
	stdin, err := t.cmd.StdinPipe()
	if err != nil {
		stdout.Close()
		child.Close()
		return nil, err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	err = t.cmd.Start()
	child.Close()
	if err != nil {
		stdout.Close()
		return nil, err
	}
	t.started, t.stdin, t.stdout = true, stdin, stdout
	if t.killed {
		t.cmd.Process.Kill()
	}
	go t.reap()
	return (&mcp.IOTransport{Reader: io.NopCloser(hangUp{stdout, t}), Writer: closer{refused{stdin, t}, t.stop}}).Connect(ctx)
}

func (t *commandTransport) reap() {
	err := t.cmd.Wait()
	t.mu.Lock()
	t.exit = "exit status 0"
	if err != nil {
		t.exit = err.Error()
	}
	t.mu.Unlock()
	close(t.exited)
}

// hangUp notes the end of the server's stdout.
type hangUp struct {
	r io.Reader
	t *commandTransport
}

func (h hangUp) Read(p []byte) (int, error) {
	n, err := h.r.Read(p)
	if err != nil {
		h.t.mu.Lock()
		h.t.hungUp = h.t.hungUp || !h.t.stopping
		h.t.mu.Unlock()
	}
	return n, err
}

// refused notes a write to the server's stdin that failed.
type refused struct {
	w io.Writer
	t *commandTransport
}

func (r refused) Write(p []byte) (int, error) {
	n, err := r.w.Write(p)
	if err != nil {
		r.t.mu.Lock()
		r.t.hungUp = r.t.hungUp || !r.t.stopping
		r.t.mu.Unlock()
	}
	return n, err
}

// stop ends the session as the MCP specification says a client does: it closes
// the server's input, waits for it to exit, sends SIGTERM, waits again, and
// kills it (at once where there is no SIGTERM, as on Windows).
func (t *commandTransport) stop() error {
	t.mu.Lock()
	t.stopping = true
	t.mu.Unlock()
	t.stdin.Close()
	// Nothing more is read: a server blocked writing an answer too large to
	// read exits on the closed pipe rather than at the deadline.
	t.stdout.Close()
	if t.await(stopGrace) {
		return nil
	}
	t.mu.Lock()
	t.signalled = true
	t.mu.Unlock()
	if t.cmd.Process.Signal(syscall.SIGTERM) == nil && t.await(stopGrace) {
		return nil
	}
	t.cmd.Process.Kill()
	<-t.exited
	return nil
}

func (t *commandTransport) await(d time.Duration) bool {
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-t.exited:
		return true
	case <-timer.C:
		return false
	}
}

// kill kills the process at once, or as soon as it starts.
func (t *commandTransport) kill() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.killed, t.signalled = true, true
	if t.started {
		t.cmd.Process.Kill()
	}
}

// killWhenDone kills the process when ctx is done, so that the time given to
// the server bounds stopping it too; stop undoes that.
func (t *commandTransport) killWhenDone(ctx context.Context) (stop func() bool) {
	return context.AfterFunc(ctx, t.kill)
}

// explain adds to err how the server exited, when it went away on its own, and
// the end of its stderr, redacted by ss. The session must be closed, so that the
// process is reaped.
func (t *commandTransport) explain(err error, ss secrets) error {
	t.mu.Lock()
	exit := t.exit
	if !t.hungUp || t.signalled {
		exit = ""
	}
	t.mu.Unlock()
	var said []string
	if exit != "" {
		said = append(said, "the server exited: "+exit)
	}
	if lines := t.stderr.lines(ss); len(lines) > 0 {
		said = append(said, fmt.Sprintf("the last %d lines of its stderr: %s", len(lines), strings.Join(lines, ", ")))
	}
	if len(said) == 0 {
		return err
	}
	return fmt.Errorf("%w (%s)", err, strings.Join(said, "; "))
}

// closer closes the server's input through stop.
type closer struct {
	io.Writer
	stop func() error
}

func (c closer) Close() error { return c.stop() }

// tail keeps the last stderrBytes written to it.
type tail struct {
	mu   sync.Mutex
	buf  []byte
	full bool // bytes were dropped from the front
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - stderrBytes; over > 0 {
		t.buf, t.full = t.buf[over:], true
	}
	return len(p), nil
}

// lines are the last stderrLines whole lines kept, each quoted, redacted by ss and
// escaped so that none acts on a terminal.
func (t *tail) lines(ss secrets) []string {
	t.mu.Lock()
	text := string(t.buf)
	full := t.full
	t.mu.Unlock()
	all := strings.Split(strings.TrimRight(strings.ReplaceAll(text, "\r\n", "\n"), "\n"), "\n")
	if full {
		all = all[1:] // its start was dropped, and with it maybe part of a secret
	}
	all = all[max(0, len(all)-stderrLines):]
	var out []string
	for _, line := range all {
		if line = strings.TrimSpace(line); line != "" {
			out = append(out, `"`+printable.String(ss.redact(line))+`"`)
		}
	}
	return out
}
