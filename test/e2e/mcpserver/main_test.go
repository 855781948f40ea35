package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/skillsync/skillsync/test/e2e/mcpserver/tools"
)

func TestServe(t *testing.T) {
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26"}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":"c","method":"tools/call","params":{"name":"t","arguments":{}}}`,
		`{"jsonrpc":"2.0","id":4,"method":"nope"}`,
	}, "\n")
	var out bytes.Buffer
	list := []tools.Tool{{Name: "intents_propose", Description: "Propose", InputSchema: json.RawMessage(`{"type":"object"}`)}}
	if err := serve(strings.NewReader(in), &out, list); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 4 {
		t.Fatalf("want 4 answers (none to the notification), got:\n%s", out.String())
	}
	for i, want := range []string{`"protocolVersion":"2025-03-26"`, `"name":"intents_propose"`, `"id":"c","result":{"content"`, `"code":-32601`} {
		if !strings.Contains(lines[i], want) {
			t.Errorf("answer %d = %s, want it to contain %s", i, lines[i], want)
		}
	}
}
