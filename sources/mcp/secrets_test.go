package mcp

import (
	"errors"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestSecretsAreRedactedAndRefused(t *testing.T) {
	s := Server{Name: "remote", URL: "http://127.0.0.1:1/mcp", Env: map[string]string{"LEVEL": "${LEVEL}"},
		Headers: map[string]string{"Authorization": "Bearer ${TOKEN}", "X-Org": "${ORG}"}}
	env := map[string]string{"TOKEN": "tok-1234567890", "ORG": "org", "LEVEL": "debug"}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	transport, err := s.Transport(lookup)
	if err != nil {
		t.Fatal(err)
	}
	// A value shorter than MinSecret is no credential.
	if got := transport.secrets.redact("org tok-1234567890 \"tok-1234567890\""); got != `org [redacted ${TOKEN}] "[redacted ${TOKEN}]"` {
		t.Errorf("redact: %q", got)
	}
	wrapped := errors.New("the server said tok-1234567890")
	if err := transport.explain(wrapped); err.Error() != "the server said [redacted ${TOKEN}]" || !errors.Is(err, wrapped) {
		t.Errorf("explain: %v", err)
	}
	echo := Listing{Tools: []*mcp.Tool{{Name: "fine"}, {Name: "who", Description: "you are tok-1234567890"}}}
	var echoErr *EchoError
	if err := transport.secrets.echoed(echo); !errors.As(err, &echoErr) || echoErr.Var != "${TOKEN}" || echoErr.Where != `the tool "who"` ||
		echoErr.At != ".mcp.json (mcpServers.remote.headers.Authorization)" || strings.Contains(err.Error(), "tok-") {
		t.Errorf("echoed: %v", err)
	}
	delete(env, "ORG")
	var unset *UnsetError
	if _, err := s.Transport(lookup); !errors.As(err, &unset) || unset.Var != "ORG" || unset.At != ".mcp.json (mcpServers.remote.headers.X-Org)" {
		t.Errorf("unset: %v", err)
	}
}

// The end of a server's stderr: whole lines, the last stderrLines of them,
// redacted and escaped.
func TestStderrTail(t *testing.T) {
	var tl tail
	tl.Write([]byte(strings.Repeat("x", stderrBytes) + "-tok-1234567890\n"))
	for i := range 30 {
		tl.Write([]byte(strings.Repeat("line ", i%3+1) + "\x1b[31m tok-1234567890\r\n"))
	}
	lines := tl.lines(secrets{{name: "${TOKEN}", value: "tok-1234567890"}})
	if len(lines) != stderrLines || lines[len(lines)-1] != `"line line line \u001b[31m [redacted ${TOKEN}]"` {
		t.Errorf("lines:\n%s", strings.Join(lines, "\n"))
	}
	tl = tail{}
	tl.Write([]byte(strings.Repeat("y", 2*stderrBytes) + "tok-1234567890"))
	if lines := tl.lines(nil); len(lines) != 0 {
		t.Errorf("a cut line is kept: %q", lines)
	}
}
