package mcpsource

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/skillsync/skillsync/desired/registry"
)

// MaxTools bounds how many tools one server may list: a server that lists more is
// misbehaving, and a snapshot of it would be too large to review.
const MaxTools = 2000

// Server is how to reach an MCP server: a command serving stdio, run in Dir (the
// workspace root, as the clients run a project's servers), or an endpoint.
type Server struct {
	Name    string
	Dir     string
	Command string
	Args    []string
	Env     map[string]string
	URL     string
	Headers map[string]string
}

// Transport connects to s; ${VAR} in an env or header value is read from getenv.
func (s Server) Transport(getenv func(string) string) (mcp.Transport, error) {
	switch {
	case s.Command != "":
		cmd := exec.Command(s.Command, s.Args...)
		cmd.Dir, cmd.Env = s.Dir, os.Environ()
		for k, v := range s.Env {
			cmd.Env = append(cmd.Env, k+"="+expand(v, getenv))
		}
		return &mcp.CommandTransport{Command: cmd}, nil
	case s.URL != "":
		headers := map[string]string{}
		for k, v := range s.Headers {
			headers[k] = expand(v, getenv)
		}
		return &mcp.StreamableClientTransport{Endpoint: s.URL, HTTPClient: &http.Client{Transport: withHeaders{headers, http.DefaultTransport}}}, nil
	}
	return nil, fmt.Errorf("MCP server %q has neither a command nor a url: configure it in .mcp.json or in spec.mcpSources", s.Name)
}

var reference = regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)\}`)

func expand(v string, getenv func(string) string) string {
	return reference.ReplaceAllStringFunc(v, func(ref string) string { return getenv(reference.FindStringSubmatch(ref)[1]) })
}

type withHeaders struct {
	headers map[string]string
	next    http.RoundTripper
}

func (h withHeaders) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	for k, v := range h.headers {
		req.Header.Set(k, v)
	}
	resp, err := h.next.RoundTrip(req)
	if err == nil && strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
		resp.Body = &boundedBody{resp.Body, MaxMessage}
	}
	return resp, err
}

// MaxMessage bounds one message of a server, over HTTP as the SDK bounds a line
// over stdio: a larger one is refused before it is read whole.
const MaxMessage = mcp.DefaultMaxLineLength

// boundedBody fails a read past its bound, where the SDK would read on into memory.
type boundedBody struct {
	io.ReadCloser
	left int64
}

func (b *boundedBody) Read(p []byte) (int, error) {
	if b.left <= 0 {
		return 0, fmt.Errorf("the server answered with more than %d bytes in one message", MaxMessage)
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.ReadCloser.Read(p)
	b.left -= int64(n)
	return n, err
}

// Listing is what a server declares: its tools, and the skills it publishes,
// those src selects with their SKILL.md read and verified.
type Listing struct {
	Tools     []*mcp.Tool
	Publishes bool
	Skills    []PublishedSkill
}

// List connects over t and lists what src records of the server.
func List(ctx context.Context, src registry.MCPSource, t mcp.Transport) (Listing, error) {
	client := mcp.NewClient(&mcp.Implementation{Name: "skillsync", Version: registry.APIVersion}, nil)
	t, ext := forSource(src, t)
	session, err := client.Connect(ctx, t, nil)
	if err != nil {
		return Listing{}, fmt.Errorf("connect: %w", err)
	}
	defer session.Close()
	return describe(ctx, src, session, ext)
}

// forSource is t, able to carry the skills extension's requests, which a
// snapshot makes of every server that declares the extension.
func forSource(_ registry.MCPSource, t mcp.Transport) (mcp.Transport, *extensionTransport) {
	ext := withExtensions(t)
	return ext, ext
}

// describe lists the tools of the server and, when it publishes any, its skills,
// reading the SKILL.md of each one a snapshot can record, whether src selects it
// or not: a snapshot records what the server said.
func describe(ctx context.Context, src registry.MCPSource, session *mcp.ClientSession, ext *extensionTransport) (Listing, error) {
	tools, err := listTools(ctx, session)
	if err != nil {
		return Listing{}, err
	}
	l := Listing{Tools: tools, Publishes: publishes(session)}
	if !l.Publishes || ext == nil {
		return l, nil
	}
	if l.Skills, err = listSkills(ctx, ext.conn); err != nil {
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
			l.Skills[i].refused = err
		}
	}
	return l, nil
}

// MaxPublished bounds the bytes of all the SKILL.md files of one server a
// snapshot records, as MaxSkillFile bounds one.
const MaxPublished = 8 << 20

// listTools lists every tool of the server, page after page, up to MaxTools.
func listTools(ctx context.Context, session *mcp.ClientSession) ([]*mcp.Tool, error) {
	var tools []*mcp.Tool
	for tool, err := range session.Tools(ctx, nil) {
		if err != nil {
			return nil, fmt.Errorf("tools/list: %w", err)
		}
		if len(tools) == MaxTools {
			return nil, fmt.Errorf("tools/list: more than %d tools", MaxTools)
		}
		tools = append(tools, tool)
	}
	return tools, nil
}
