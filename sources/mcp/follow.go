package mcp

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/skillsync/skillsync/desired/registry"
)

// Follower keeps one source's snapshot in step with its live server, for the
// watcher: it lists the tools when it connects and again whenever the server says
// they changed, and writes the snapshot through Write when it differs. Report
// hears each failure (nil once the server answers again), with every secret of the
// server's configuration redacted; the snapshot written last stays in force
// meanwhile, so a server that goes away prunes nothing.
type Follower struct {
	Source registry.MCPSource
	Server Server
	Path   string
	// Lookup reads the environment, as os.LookupEnv does.
	Lookup func(string) (string, bool)
	Write  func(snapshot []byte) error
	Report func(err error)
	// Timeout bounds each connect and listing; Backoff is the first wait before
	// connecting again, doubled up to MaxBackoff.
	Timeout, Backoff, MaxBackoff time.Duration
}

// Run follows the server until ctx is done.
func (f Follower) Run(ctx context.Context) {
	wait := f.Backoff
	for ctx.Err() == nil {
		answered, err := f.session(ctx)
		if ctx.Err() != nil {
			return
		}
		f.Report(err)
		if answered {
			wait = f.Backoff // a server that worked and then failed is tried again soon
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
		wait = min(2*wait, f.MaxBackoff)
	}
}

// errClosed is a session the server ended.
var errClosed = errors.New("the server closed the session")

// session connects once and records the tools until the session ends; answered
// says the server listed its tools at least once.
func (f Follower) session(ctx context.Context) (answered bool, err error) {
	transport, err := f.Server.Transport(f.Lookup)
	if err != nil {
		return false, err
	}
	defer func() { err = transport.explain(err) }() // once the session is closed
	changed := make(chan struct{}, 1)
	notify := func() {
		select {
		case changed <- struct{}{}:
		default:
		}
	}
	// The skills extension defines no notification of its own: a server whose
	// skills change changes its skill:// resources.
	client := newClient(&mcp.ClientOptions{
		ToolListChangedHandler:     func(context.Context, *mcp.ToolListChangedRequest) { notify() },
		ResourceListChangedHandler: func(context.Context, *mcp.ResourceListChangedRequest) { notify() },
	})
	session, skills, err := f.connect(ctx, client, transport)
	if err != nil {
		return false, fmt.Errorf("connect: %w", err)
	}
	defer session.Close()
	ended := make(chan error, 1)
	go func() { ended <- session.Wait() }()
	for {
		if err := f.record(ctx, session, skills, transport); err != nil {
			return answered, err
		}
		answered = true
		f.Report(nil)
		select {
		case <-ctx.Done():
			return answered, nil
		case err := <-ended:
			if err == nil {
				err = errClosed
			}
			return answered, err
		case <-changed:
		}
	}
}

// connect connects within Timeout; a server that takes longer is killed.
func (f Follower) connect(ctx context.Context, client *mcp.Client, t *Transport) (*mcp.ClientSession, skillLister, error) {
	ctx, cancel := context.WithTimeout(ctx, f.Timeout)
	defer cancel()
	stop := t.killWhenDone(ctx)
	session, skills, err := t.connect(ctx, client)
	// A connect that failed mostly closed the session, which stopped the
	// server: killing what has exited would make its exit look like skillsync's
	// doing, and leave it out of the error. One still running is killed as ctx
	// ends.
	if err == nil || t.ended() {
		stop()
	}
	return session, skills, err
}

// record lists what the server declares, within Timeout, and writes the
// snapshot it makes; a server that takes longer is killed.
func (f Follower) record(ctx context.Context, session *mcp.ClientSession, skills skillLister, t *Transport) error {
	ctx, cancel := context.WithTimeout(ctx, f.Timeout)
	defer cancel()
	defer t.killWhenDone(ctx)()
	listing, err := describe(ctx, f.Source, session, skills, t.secrets)
	if err == nil {
		err = t.secrets.echoed(listing)
	}
	if err != nil {
		return err
	}
	recorded, err := Snapshot(f.Source, listing, f.Path)
	if err != nil {
		return err
	}
	return f.Write(recorded.Snapshot)
}
