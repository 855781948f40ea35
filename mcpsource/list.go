package mcpsource

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"regexp"

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
	return h.next.RoundTrip(req)
}

// List connects over t and lists every tool of the server, page after page.
func List(ctx context.Context, t mcp.Transport) ([]*mcp.Tool, error) {
	client := mcp.NewClient(&mcp.Implementation{Name: "skillsync", Version: registry.APIVersion}, nil)
	session, err := client.Connect(ctx, t, nil)
	if err != nil {
		return nil, fmt.Errorf("connect: %w", err)
	}
	defer session.Close()
	return listTools(ctx, session)
}

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
