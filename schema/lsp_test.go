//go:build editor

package schema

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/textproto"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

// languageServer is a language server driven over stdio the way an editor drives
// it: JSON-RPC messages framed by a Content-Length header.
type languageServer struct {
	t        *testing.T
	cmd      *exec.Cmd
	stdin    io.WriteCloser
	messages chan message // everything the server sends, in order
	nextID   int
	settings map[string]any // what workspace/configuration answers
	// diagnostics holds the last diagnostics published for each document.
	diagnostics map[string][]diagnostic
}

type message struct {
	ID     *json.RawMessage `json:"id"`
	Method string           `json:"method"`
	Params json.RawMessage  `json:"params"`
	Result json.RawMessage  `json:"result"`
	Error  *struct {
		Message string `json:"message"`
	} `json:"error"`
}

type diagnostic struct {
	Range struct {
		Start struct{ Line, Character int } `json:"start"`
	} `json:"range"`
	Severity int    `json:"severity"`
	Message  string `json:"message"`
	Source   string `json:"source"`
}

// line is the diagnostic's line, 1-based as in every other message here.
func (d diagnostic) line() int { return d.Range.Start.Line + 1 }

func (d diagnostic) String() string { return fmt.Sprintf("%d: %s", d.line(), d.Message) }

func startLanguageServer(t *testing.T, command []string, settings map[string]any) *languageServer {
	t.Helper()
	cmd := exec.Command(command[0], command[1:]...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := &languageServer{t: t, cmd: cmd, stdin: stdin, messages: make(chan message, 256),
		settings: settings, diagnostics: map[string][]diagnostic{}}
	go s.read(bufio.NewReader(stdout))
	t.Cleanup(func() {
		stdin.Close()
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-done
		}
		if t.Failed() && stderr.Len() > 0 {
			t.Logf("language server stderr:\n%s", stderr.String())
		}
	})
	return s
}

func (s *languageServer) read(r *bufio.Reader) {
	defer close(s.messages)
	headers := textproto.NewReader(r)
	for {
		h, err := headers.ReadMIMEHeader()
		if err != nil {
			return
		}
		n, err := strconv.Atoi(h.Get("Content-Length"))
		if err != nil {
			return
		}
		body := make([]byte, n)
		if _, err := io.ReadFull(r, body); err != nil {
			return
		}
		var m message
		if json.Unmarshal(body, &m) == nil {
			s.messages <- m
		}
	}
}

func (s *languageServer) send(v map[string]any) {
	s.t.Helper()
	v["jsonrpc"] = "2.0"
	body, err := json.Marshal(v)
	if err != nil {
		s.t.Fatal(err)
	}
	if _, err := fmt.Fprintf(s.stdin, "Content-Length: %d\r\n\r\n%s", len(body), body); err != nil {
		s.t.Fatalf("write to the language server: %v", err)
	}
}

func (s *languageServer) notify(method string, params any) {
	s.send(map[string]any{"method": method, "params": params})
}

// call sends a request and waits for its result, handling whatever the server
// sends meanwhile.
func (s *languageServer) call(method string, params, result any) {
	s.t.Helper()
	s.nextID++
	id := s.nextID
	s.send(map[string]any{"id": id, "method": method, "params": params})
	deadline := time.After(time.Minute)
	for {
		select {
		case m, ok := <-s.messages:
			if !ok {
				s.t.Fatalf("the language server stopped before answering %s", method)
			}
			if m.Method != "" || m.ID == nil || string(*m.ID) != strconv.Itoa(id) {
				s.handle(m)
				continue
			}
			if m.Error != nil {
				s.t.Fatalf("%s: %s", method, m.Error.Message)
			}
			if result != nil {
				if err := json.Unmarshal(m.Result, result); err != nil {
					s.t.Fatalf("%s: %v", method, err)
				}
			}
			return
		case <-deadline:
			s.t.Fatalf("no answer to %s in a minute", method)
		}
	}
}

// handle records published diagnostics and answers the server's own requests.
func (s *languageServer) handle(m message) {
	switch {
	case m.Method == "textDocument/publishDiagnostics":
		var p struct {
			URI         string       `json:"uri"`
			Diagnostics []diagnostic `json:"diagnostics"`
		}
		if err := json.Unmarshal(m.Params, &p); err != nil {
			s.t.Fatal(err)
		}
		s.diagnostics[p.URI] = p.Diagnostics
	case m.Method == "workspace/configuration" && m.ID != nil:
		var p struct{ Items []struct{ Section string } }
		json.Unmarshal(m.Params, &p)
		answer := make([]any, len(p.Items))
		for i, item := range p.Items {
			answer[i] = s.settings[item.Section]
		}
		s.send(map[string]any{"id": m.ID, "result": answer})
	case m.Method != "" && m.ID != nil: // registrations, progress: nothing to do
		s.send(map[string]any{"id": m.ID, "result": nil})
	}
}

// settle handles messages until every one of uris has diagnostics and the server
// has been quiet for a while: it publishes again whenever it validates again.
func (s *languageServer) settle(uris []string) {
	s.t.Helper()
	const quiet = 2 * time.Second
	deadline := time.After(2 * time.Minute)
	for {
		select {
		case m, ok := <-s.messages:
			if !ok {
				s.t.Fatal("the language server stopped")
			}
			s.handle(m)
		case <-time.After(quiet):
			missing := 0
			for _, u := range uris {
				if _, ok := s.diagnostics[u]; !ok {
					missing++
				}
			}
			if missing == 0 {
				return
			}
		case <-deadline:
			s.t.Fatalf("the language server published no diagnostics for some documents in two minutes")
		}
	}
}
