package mcp

import (
	"context"
	"fmt"
	"maps"
	"net/url"
	"os"
	"os/exec"
	"slices"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

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
	// Where says where the configuration gives the value under keys, such as
	// (headers, Authorization), for an error about it; nil says ConfigFile's
	// mcpServers.
	Where func(keys ...string) string
}

// Transport is how skillsync reaches one server: the SDK's transport, and what
// it keeps to speak of a failure without giving a secret away.
type Transport struct {
	sdk     mcp.Transport
	secrets secrets
	command *commandTransport // nil unless the server is a command
}

// Over is a Transport over t, an SDK transport that has no process and reads no
// secret, such as one to a server in the same process.
func Over(t mcp.Transport) *Transport { return &Transport{sdk: t} }

// Transport is how to reach s: the ${VAR}s of its env and header values are
// read through lookup, and one that is not set is an *UnsetError before anything
// is started or sent. A header goes only to the origin of the url. What the url
// itself carries that may be a credential is a secret too (urlSecrets).
func (s Server) Transport(lookup func(string) (string, bool)) (*Transport, error) {
	t := &Transport{}
	switch {
	case s.Command != "":
		cmd := exec.Command(s.Command, s.Args...)
		cmd.Dir, cmd.Env = s.Dir, os.Environ()
		for _, k := range slices.Sorted(maps.Keys(s.Env)) {
			v, err := s.expand(s.Env[k], lookup, &t.secrets, "env", k)
			if err != nil {
				return nil, err
			}
			cmd.Env = append(cmd.Env, k+"="+v)
		}
		t.command = newCommandTransport(cmd)
		t.sdk = t.command
	case s.URL != "":
		u, err := url.Parse(s.URL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, fmt.Errorf("the url of MCP server %q, given at %s, is no http or https URL", s.Name, s.at("url"))
		}
		s.urlSecrets(u, &t.secrets)
		headers := map[string]string{}
		for _, k := range slices.Sorted(maps.Keys(s.Headers)) {
			v, err := s.expand(s.Headers[k], lookup, &t.secrets, "headers", k)
			if err != nil {
				return nil, err
			}
			headers[k] = v
		}
		t.sdk = &mcp.StreamableClientTransport{Endpoint: s.URL, HTTPClient: originClient(u, headers)}
	default:
		return nil, fmt.Errorf("MCP server %q has neither a command nor a url: configure it in .mcp.json or in spec.mcpSources", s.Name)
	}
	return t, nil
}

// explain is err as it may be shown: what a command that failed left behind
// added, and every secret redacted.
func (t *Transport) explain(err error) error {
	if err == nil {
		return nil
	}
	if t.command != nil {
		err = t.command.explain(err, t.secrets)
	}
	return t.secrets.redactError(err)
}

// ended tells whether a command's process has exited and been reaped.
func (t *Transport) ended() bool {
	if t.command == nil {
		return false
	}
	select {
	case <-t.command.exited:
		return true
	default:
		return false
	}
}

// killWhenDone ends a command's process when ctx is done, so that the time
// given to the server bounds stopping it too; the returned func undoes it.
func (t *Transport) killWhenDone(ctx context.Context) func() bool {
	if t.command == nil {
		return func() bool { return false }
	}
	return t.command.killWhenDone(ctx)
}
