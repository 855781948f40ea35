package clients

import (
	"regexp"
	"strings"
	"testing"
)

// The names each client showed its model, measured by the conformance suite
// (make e2e) with the server conformance and its tools notes.get and
// quotes_say.
func TestMCPToolNamesAsTheClientsShowThem(t *testing.T) {
	for _, c := range []struct {
		client, tool, want string
	}{
		{"Claude Code", "notes.get", "mcp__conformance__notes_get"},
		{"Claude Code", "quotes_say", "mcp__conformance__quotes_say"},
		{"Qwen Code", "notes.get", "mcp__conformance__notes_get_0sr7uiv"},
		{"Qwen Code", "quotes_say", "mcp__conformance__quotes_say"},
		{"Cline", "notes.get", "conformance__notes_get_b9fba352"},
		{"Cline", "quotes_say", "conformance__quotes_say"},
		{"Copilot CLI", "notes.get", "conformance-notes-get"},
		{"OpenCode", "notes.get", "conformance_notes_get"},
		{"Kilo", "notes.get", "conformance_notes_get"},
		{"Gemini CLI", "notes.get", "mcp_conformance_notes.get"},
	} {
		if got := clientNamed(t, c.client).MCPToolName("conformance", c.tool); got != c.want {
			t.Errorf("%s shows %s as %q, want %q", c.client, c.tool, got, c.want)
		}
	}
}

// A long name is cut, as each client cuts it (measured with the same server and
// a tool of 62 characters), or kept.
func TestLongMCPToolNamesAsTheClientsShowThem(t *testing.T) {
	long := "a_tool_name_long_enough_to_pass_sixty_four_characters_in_all_x"
	for client, want := range map[string]string{
		"Claude Code": "mcp__conformance__" + long,
		"OpenCode":    "conformance_" + long,
		"Copilot CLI": "conformance-a_tool_name_long_enough_to_pass_sixty_four_character",
		"Gemini CLI":  "mcp_conformance_a_tool_name_lo...sixty_four_characters_in_all_x",
	} {
		if got := clientNamed(t, client).MCPToolName("conformance", long); got != want {
			t.Errorf("%s shows the long tool as %q, want %q", client, got, want)
		}
	}
	if got := clientNamed(t, "Qwen Code").MCPToolName("conformance", long); len(got) != 63 || got[:55] != ("mcp__conformance__" + long)[:55] {
		t.Errorf("Qwen Code: %q (%d)", got, len(got))
	}
	if got := clientNamed(t, "Cline").MCPToolName("conformance", long); len(got) != 64 || got[:55] != ("conformance__" + long)[:55] {
		t.Errorf("Cline: %q (%d)", got, len(got))
	}
}

func clientNamed(t *testing.T, name string) Client {
	t.Helper()
	for _, c := range All {
		if c.Name == name {
			return c
		}
	}
	t.Fatalf("no client %s", name)
	return Client{}
}

func TestFillToolPatternReplacesAsAReplacerWould(t *testing.T) {
	for _, c := range []struct{ pattern, server, tool string }{
		{"mcp__<server>__<tool>", "memory", "create_entities"},
		{"<server>-<tool>", "a<tool>b", "<server>"},
		{"<server_<tool>>", "s", "t"},
		{"<<server>>", "s", "t"},
		{"mcp__<server>", "my-server", "ignored"},
		{"no placeholder <", "s", "t"},
		{"", "s", "t"},
	} {
		want := strings.NewReplacer("<server>", c.server, "<tool>", c.tool).Replace(c.pattern)
		if got := fillToolPattern(c.pattern, c.server, c.tool); got != want {
			t.Errorf("fillToolPattern(%q, %q, %q) = %q, want %q", c.pattern, c.server, c.tool, got, want)
		}
	}
}

// safeToolName says what the clients' own patterns say: Qwen Code's
// ^[A-Za-z][A-Za-z0-9_-]*$, and Cline's name without a character outside
// [A-Za-z0-9_-].
func TestSafeToolNameIsTheClientsPattern(t *testing.T) {
	letterFirst := regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_-]*$`)
	unsafe := regexp.MustCompile(`[^A-Za-z0-9_-]`)
	names := []string{"", "tickets_create", "Tickets-2", "2tickets", "_x", "-x", "a.b", "ü", "a b"}
	for a := 0; a < 256; a++ {
		for _, b := range []byte{'a', '0', '_', '-', '.', 0x80} {
			names = append(names, string([]byte{byte(a)}), string([]byte{byte(a), b}), string([]byte{b, byte(a)}))
		}
	}
	for _, n := range names {
		if got, want := safeToolName(n, true), letterFirst.MatchString(n); got != want {
			t.Errorf("safeToolName(%q, true) = %v, want %v", n, got, want)
		}
		if got, want := safeToolName(n, false), !unsafe.MatchString(n); got != want {
			t.Errorf("safeToolName(%q, false) = %v, want %v", n, got, want)
		}
	}
}
