package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/skillsync/skillsync/desired/registry"
)

// MaxTools bounds how many tools one server may list: a server that lists more is
// misbehaving, and a snapshot of it would be too large to review.
const MaxTools = 2000

// MaxPages and MaxListing bound one listing of tools, or of published skills: a
// server that pages on and on is refused, not waited out.
const (
	MaxPages   = 100
	MaxListing = 32 << 20
)

// Listing is what a server declares: its tools, and the skills it publishes,
// with the SKILL.md of each one a snapshot can record read and verified.
type Listing struct {
	Tools     []*mcp.Tool
	Publishes bool
	Skills    []PublishedSkill
}

func newClient(opts *mcp.ClientOptions) *mcp.Client {
	return mcp.NewClient(&mcp.Implementation{Name: "skillsync", Version: registry.APIVersion}, opts)
}

// List connects over t and lists what src records of the server. A command is
// killed when ctx is done, even while it is being stopped. An answer that holds
// a secret of the server's configuration is an *EchoError, and no error holds one.
func List(ctx context.Context, src registry.MCPSource, t *Transport) (l Listing, err error) {
	defer func() { err = t.explain(err) }() // once the session is closed and the process reaped
	defer t.killWhenDone(ctx)()
	session, skills, err := t.connect(ctx, newClient(nil))
	if err != nil {
		return Listing{}, fmt.Errorf("connect: %w", expired(ctx, err))
	}
	defer session.Close()
	if l, err = describe(ctx, src, session, skills, t.secrets); err != nil {
		return Listing{}, expired(ctx, err)
	}
	return l, t.secrets.echoed(l)
}

// expired is err, a failure while ctx was done, wrapping why ctx is done, so
// that a caller can tell a server that ran out of time from one that failed.
// It is taken when the failure is, not once the session is closed, which may
// take until the deadline however it failed.
func expired(ctx context.Context, err error) error {
	if cause := ctx.Err(); cause != nil && !errors.Is(err, cause) {
		return fmt.Errorf("%w (%w)", err, cause)
	}
	return err
}

// connect opens a session for client, and the way to list the skills the
// server publishes, which a snapshot records of every server that declares the
// extension. The skills extension's requests travel on a connection skillsync
// wraps, which hides from the SDK's Streamable HTTP connection that the session
// is initialised, and with it the stream the server's notifications come on: over
// HTTP they take a short session of their own, and the session that listens is
// the SDK's alone (docs/decisions.md).
func (t *Transport) connect(ctx context.Context, client *mcp.Client) (*mcp.ClientSession, skillLister, error) {
	if _, ok := t.sdk.(*mcp.StreamableClientTransport); ok {
		session, err := client.Connect(ctx, t.sdk, nil)
		return session, t.listSkillsApart, err
	}
	ext := withExtensions(t.sdk)
	session, err := client.Connect(ctx, ext, nil)
	return session, func(ctx context.Context) ([]PublishedSkill, error) { return listSkills(ctx, ext.conn) }, err
}

// listSkillsApart lists the published skills on a session of their own.
func (t *Transport) listSkillsApart(ctx context.Context) ([]PublishedSkill, error) {
	ext := withExtensions(t.sdk)
	session, err := newClient(nil).Connect(ctx, ext, nil)
	if err != nil {
		return nil, fmt.Errorf("skills/list: connect: %w", err)
	}
	defer session.Close()
	return listSkills(ctx, ext.conn)
}

// skillLister lists the skills a server publishes.
type skillLister func(context.Context) ([]PublishedSkill, error)

// describe lists the tools of the server and, when it publishes any, its skills,
// reading the SKILL.md of each one a snapshot can record, whether src selects it
// or not: a snapshot records what the server said. Why one that src leaves out
// could not be read is kept with ss redacted, since it is printed, not returned.
func describe(ctx context.Context, src registry.MCPSource, session *mcp.ClientSession, skills skillLister, ss secrets) (Listing, error) {
	tools, err := listTools(ctx, session)
	if err != nil {
		return Listing{}, err
	}
	l := Listing{Tools: tools, Publishes: publishes(session)}
	if !l.Publishes || skills == nil {
		return l, nil
	}
	if l.Skills, err = skills(ctx); err != nil {
		return Listing{}, err
	}
	var total int64
	for i, sk := range l.Skills {
		if unrecordable(sk, l.Skills) != "" {
			continue
		}
		if total += sk.SkillMD().Size; total > MaxPublished {
			return Listing{}, fmt.Errorf("the skills the server publishes hold more than %d bytes in all, more than skillsync records", MaxPublished)
		}
		l.Skills[i].Content, err = readSkill(ctx, session, sk)
		switch {
		case err != nil && src.SelectsSkill(sk.Name):
			return Listing{}, err
		case err != nil:
			// One that publishedSkills leaves out keeps none of the others out.
			l.Skills[i].refused = ss.redactError(err)
		}
	}
	return l, nil
}

// MaxPublished bounds the bytes of all the SKILL.md files of one server a
// snapshot records, as MaxSkillFile bounds one.
const MaxPublished = 8 << 20

// listTools lists every tool of the server, page after page, up to MaxTools,
// MaxPages and MaxListing.
func listTools(ctx context.Context, session *mcp.ClientSession) ([]*mcp.Tool, error) {
	var tools []*mcp.Tool
	var pages pager
	params := &mcp.ListToolsParams{}
	for {
		res, err := session.ListTools(ctx, params)
		if err != nil {
			return nil, fmt.Errorf("tools/list: %w", err)
		}
		data, _ := json.Marshal(res) // as it came
		if err := pages.add(len(data)); err != nil {
			return nil, fmt.Errorf("tools/list: %w", err)
		}
		if tools = append(tools, res.Tools...); len(tools) > MaxTools {
			return nil, fmt.Errorf("tools/list: more than %d tools", MaxTools)
		}
		if res.NextCursor == "" {
			return tools, nil
		}
		params.Cursor = res.NextCursor
	}
}

// pager counts the pages of one listing and their size.
type pager struct{ pages, size int }

func (p *pager) add(size int) error {
	p.pages++
	p.size += size
	switch {
	case p.pages > MaxPages:
		return fmt.Errorf("the server gave more than %d pages", MaxPages)
	case p.size > MaxListing:
		return fmt.Errorf("the server gave more than %d bytes in %d pages", MaxListing, p.pages)
	}
	return nil
}
