package mcp

import (
	"encoding/base64"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
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

// A variable may hold a whole header value, scheme and all: its token is a
// secret alone too, and so is the value whole again where the snapshot makes
// the white space in a description one space.
func TestTheTokenOfAWholeHeaderValueIsASecretAlone(t *testing.T) {
	s := Server{Name: "tracker", URL: "http://127.0.0.1:1/mcp", Headers: map[string]string{"Authorization": "${TRACKER_AUTH}"}}
	lookup := func(k string) (string, bool) { return "Bearer s3cr3t-T0KEN-abcdef", k == "TRACKER_AUTH" }
	transport, err := s.Transport(lookup)
	if err != nil {
		t.Fatal(err)
	}
	for _, description := range []string{"your token is s3cr3t-T0KEN-abcdef", "You are:\nBearer\n\ns3cr3t-T0KEN-abcdef"} {
		var echoErr *EchoError
		if err := transport.secrets.echoed(Listing{Tools: []*mcp.Tool{{Name: "whoami", Description: description}}}); !errors.As(err, &echoErr) || echoErr.Var != "${TRACKER_AUTH}" {
			t.Errorf("a description %q = %v, want the secret found", description, err)
		}
	}
	if got := transport.secrets.redact("token s3cr3t-T0KEN-abcdef is expired"); got != "token [redacted ${TRACKER_AUTH}] is expired" {
		t.Errorf("redact: %q", got)
	}
	// Words too short to be a secret alone are one where the snapshot joins them.
	s.Headers["X-Key"] = "${KEY_WORDS}"
	words := func(k string) (string, bool) {
		if k == "KEY_WORDS" {
			return "abcd efgh ijkl", true
		}
		return lookup(k)
	}
	if transport, err = s.Transport(words); err != nil {
		t.Fatal(err)
	}
	var echoErr *EchoError
	if err := transport.secrets.echoed(Listing{Tools: []*mcp.Tool{{Name: "key", Description: "key: abcd\nefgh \t ijkl"}}}); !errors.As(err, &echoErr) || echoErr.Var != "${KEY_WORDS}" {
		t.Errorf("a secret split across lines = %v, want it found", err)
	}
	// The scheme alone is no secret: a description may name it.
	if err := transport.secrets.echoed(Listing{Tools: []*mcp.Tool{{Name: "auth", Description: "Send a Bearer token."}}}); err != nil {
		t.Errorf("a description naming the scheme = %v", err)
	}
}

// An environment variable of several words is a secret whole, not word by
// word: "--region europe-west1" names no credential in a description.
func TestAnEnvironmentVariablesWordsAreNoSecretsAlone(t *testing.T) {
	s := Server{Name: "local", Command: "server", Env: map[string]string{"OPTS": "${OPTS}"}}
	transport, err := s.Transport(func(k string) (string, bool) { return "--region europe-west1", k == "OPTS" })
	if err != nil {
		t.Fatal(err)
	}
	if err := transport.secrets.echoed(Listing{Tools: []*mcp.Tool{{Name: "deploy", Description: "Deploys to europe-west1."}}}); err != nil {
		t.Errorf("a description naming a word of an environment variable = %v", err)
	}
	var echoErr *EchoError
	if err := transport.secrets.echoed(Listing{Tools: []*mcp.Tool{{Name: "env", Description: "Started with --region europe-west1."}}}); !errors.As(err, &echoErr) {
		t.Errorf("a description holding the whole value = %v", err)
	}
}

// What a url carries that may be a credential (a token as the user name, a
// password, an API key in the query) is a secret of its server: redacted from
// Go's own error for a request to it (which masks the password alone), also
// where it was escaped in the url, and from a server's echo of the Basic
// header Go makes of the user name and password.
func TestTheCredentialsOfAURLAreSecrets(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := ln.Addr().String()
	ln.Close() // nothing answers there: the request fails in Go's client
	const token, password, key, bare, fragment = "ghp_U5ERTOKENvalue", "pass+word/1", "k3y-0123456789", "ghp_BARETOKENvalue", "access_token=tok-0123456789"
	s := Server{Name: "remote", URL: "http://" + token + ":" + url.PathEscape(password) + "@" + closed + "/mcp?api_key=" + url.QueryEscape(key) + "&page=1&" + bare + "#" + fragment}
	transport, err := s.Transport(func(string) (string, bool) { return "", false })
	if err != nil {
		t.Fatal(err)
	}
	_, err = http.DefaultClient.Get(s.URL)
	if err == nil {
		t.Fatal("a request to a closed port succeeded")
	}
	basic := base64.StdEncoding.EncodeToString([]byte(token + ":" + password))
	text := transport.explain(fmt.Errorf("%w; the server said: Basic %s; %s %s", err, basic, password, key)).Error()
	for _, secret := range []string{token, password, url.PathEscape(password), key, url.QueryEscape(key), basic, bare, fragment} {
		if strings.Contains(text, secret) {
			t.Errorf("%q is in %q", secret, text)
		}
	}
	if !strings.Contains(text, "[redacted the url's user name]") || !strings.Contains(text, "page=1") {
		t.Errorf("redacted: %q", text)
	}
	listed := Listing{Tools: []*mcp.Tool{{Name: "who", Description: "you are " + token}}}
	var echoErr *EchoError
	if err := transport.secrets.echoed(listed); !errors.As(err, &echoErr) || echoErr.Var != "the url's user name" || echoErr.At != ".mcp.json (mcpServers.remote.url)" {
		t.Errorf("echoed: %v", err)
	}
}

// A url that is not http or https is refused naming where it is given, not
// quoting it: it may hold a credential.
func TestAURLOfAnotherSchemeIsRefusedWithoutQuotingIt(t *testing.T) {
	s := Server{Name: "remote", URL: "ftp://ghp_U5ERTOKENvalue@example.com/mcp"}
	_, err := s.Transport(func(string) (string, bool) { return "", false })
	if err == nil || strings.Contains(err.Error(), "ghp_") || !strings.Contains(err.Error(), ".mcp.json (mcpServers.remote.url)") {
		t.Errorf("Transport = %v", err)
	}
}

// A header's value written as it is (.mcp.json allows it) is a secret too,
// named by its key, its token alone as well; an env value written as it is is
// configuration, and stays as it is.
func TestALiteralHeaderIsASecretAndALiteralEnvIsNot(t *testing.T) {
	s := Server{Name: "tracker", URL: "http://127.0.0.1:1/mcp", Headers: map[string]string{"Authorization": "Bearer ghp_L1TERALtoken", "Accept": "application/json, text/event-stream"}}
	transport, err := s.Transport(func(string) (string, bool) { return "", false })
	if err != nil {
		t.Fatal(err)
	}
	if got := transport.secrets.redact("the token ghp_L1TERALtoken is not valid"); got != "the token [redacted headers.Authorization] is not valid" {
		t.Errorf("redact: %q", got)
	}
	// The headers of content negotiation carry no credential.
	if got := transport.secrets.redact("answers in application/json, text/event-stream"); got != "answers in application/json, text/event-stream" {
		t.Errorf("redact: %q", got)
	}
	var echoErr *EchoError
	if err := transport.secrets.echoed(Listing{Tools: []*mcp.Tool{{Name: "whoami", Description: "you are ghp_L1TERALtoken"}}}); !errors.As(err, &echoErr) || echoErr.At != ".mcp.json (mcpServers.tracker.headers.Authorization)" {
		t.Errorf("echoed: %v", err)
	}
	cmd := Server{Name: "docs", Command: "docs-mcp", Env: map[string]string{"DOCS_ROOT": "/workspace/docs"}}
	if transport, err = cmd.Transport(func(string) (string, bool) { return "", false }); err != nil {
		t.Fatal(err)
	}
	if got := transport.secrets.redact("reading /workspace/docs"); got != "reading /workspace/docs" {
		t.Errorf("an env value written as it is was redacted: %q", got)
	}
}
