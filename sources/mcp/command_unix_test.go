//go:build unix

package mcp

import (
	"context"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/skillsync/skillsync/desired/registry"
)

// afterStderr connects through a command transport, then waits for the server
// to say text on its stderr before the session sends anything.
type afterStderr struct {
	t    *commandTransport
	text string
}

func (a afterStderr) Connect(ctx context.Context) (mcp.Connection, error) {
	conn, err := a.t.Connect(ctx)
	if err != nil {
		return nil, err
	}
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		a.t.stderr.mu.Lock()
		said := strings.Contains(string(a.t.stderr.buf), a.text)
		a.t.stderr.mu.Unlock()
		if said {
			return conn, nil
		}
	}
	return conn, nil
}

// A server that goes away before the session's first message reaches it (a
// shell script that fails at once) refuses that write before its stdout ends:
// it still went away on its own, and the error says how it exited. The server
// here closes its input first and exits a moment later, so that the write is
// refused every time, not by chance.
func TestAServerThatGoesAwayBeforeItIsWrittenToSaysHowItExited(t *testing.T) {
	cmd := exec.Command("sh", "-c", "exec 0<&-; echo 'input closed' >&2; sleep 0.5; echo 'fatal: no config' >&2; exit 3")
	ct := newCommandTransport(cmd)
	transport := &Transport{sdk: afterStderr{ct, "input closed"}, command: ct}
	_, err := List(context.Background(), registry.MCPSource{Name: "dies"}, transport)
	if err == nil || !strings.Contains(err.Error(), "the server exited: exit status 3") || !strings.Contains(err.Error(), `"fatal: no config"`) {
		t.Errorf("the error does not say how the server exited: %v", err)
	}
}

// The watcher's follower connects to a server that exits at once: connecting
// fails, and the process, already gone, is not then killed as well, which
// would make its exit look like skillsync's doing and drop it from the error
// that /readyz and the log show.
func TestAFollowedServerThatExitsAtOnceSaysHowItExited(t *testing.T) {
	f := Follower{Source: registry.MCPSource{Name: "dies"}, Timeout: 10 * time.Second}
	ct := newCommandTransport(exec.Command("sh", "-c", "read line; echo 'fatal: no config' >&2; exit 3"))
	transport := &Transport{sdk: ct, command: ct}
	_, _, err := f.connect(context.Background(), newClient(nil), transport)
	if err == nil {
		t.Fatal("connected to a server that exits")
	}
	// A kill left for when connect's time ends would run on a goroutine of its
	// own: give it the time to.
	for deadline := time.Now().Add(time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		ct.mu.Lock()
		killed := ct.killed
		ct.mu.Unlock()
		if killed {
			break
		}
	}
	if err := transport.explain(err); !strings.Contains(err.Error(), "the server exited: exit status 3") {
		t.Errorf("the error does not say how the server exited: %v", err)
	}
}
