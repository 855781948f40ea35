package mcpsource

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
// hears each failure (nil once the server answers again); the snapshot written
// last stays in force meanwhile, so a server that goes away prunes nothing.
type Follower struct {
	Source registry.MCPSource
	Server Server
	Path   string
	Getenv func(string) string
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
	changed := make(chan struct{}, 1)
	notify := func() {
		select {
		case changed <- struct{}{}:
		default:
		}
	}
	// The skills extension defines no notification of its own: a server whose
	// skills change changes its skill:// resources.
	client := mcp.NewClient(&mcp.Implementation{Name: "skillsync", Version: registry.APIVersion}, &mcp.ClientOptions{
		ToolListChangedHandler:     func(context.Context, *mcp.ToolListChangedRequest) { notify() },
		ResourceListChangedHandler: func(context.Context, *mcp.ResourceListChangedRequest) { notify() },
	})
	transport, err := f.Server.Transport(f.Getenv)
	if err != nil {
		return false, err
	}
	transport, ext := forSource(f.Source, transport)
	connectCtx, cancel := context.WithTimeout(ctx, f.Timeout)
	session, err := client.Connect(connectCtx, transport, nil)
	cancel()
	if err != nil {
		return false, fmt.Errorf("connect: %w", err)
	}
	defer session.Close()
	ended := make(chan error, 1)
	go func() { ended <- session.Wait() }()
	for {
		if err := f.record(ctx, session, ext); err != nil {
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

func (f Follower) record(ctx context.Context, session *mcp.ClientSession, ext *extensionTransport) error {
	listCtx, cancel := context.WithTimeout(ctx, f.Timeout)
	defer cancel()
	listing, err := describe(listCtx, f.Source, session, ext)
	if err != nil {
		return err
	}
	recorded, err := Snapshot(f.Source, listing, f.Path)
	if err != nil {
		return err
	}
	return f.Write(recorded.Snapshot)
}
