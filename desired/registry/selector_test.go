package registry

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func TestSkillSelectorPrefersANameToAPattern(t *testing.T) {
	src := MCPSource{Skills: []MCPSkill{{Tool: "*_ticket"}, {Tool: "open_*"}, {Tool: "open_ticket", Alias: "ticket"}, {Tool: "list_[ab]"}}}
	for tool, want := range map[string]int{"open_ticket": 2, "close_ticket": 0, "open_issue": 1, "list_a": 3, "list_c": -1} {
		j, ok := src.SkillSelector(tool)
		if !ok {
			j = -1
		}
		if j != want {
			t.Errorf("%s: selector %d, want %d", tool, j, want)
		}
	}
}

func TestTheConventionDerivesAliasAndArgument(t *testing.T) {
	for tool, want := range map[string]string{"open_ticket": "open-ticket", "OpenTicket": "openticket", "get-2": "get-2"} {
		if got := DerivedAlias(tool); got != want || !ValidAlias(got) {
			t.Errorf("DerivedAlias(%s) = %q (valid %v), want %q", tool, got, ValidAlias(got), want)
		}
	}
	for _, tool := range []string{"drop__all", "_private", "x-", strings.Repeat("a", 65)} {
		if ValidAlias(DerivedAlias(tool)) {
			t.Errorf("the alias of %s, %q, was taken for valid", tool, DerivedAlias(tool))
		}
	}
	for input, want := range map[string]string{
		`{"type":"object","properties":{"summary":{"type":"string"},"labels":{"type":"array"}},"required":["summary"]}`: "summary",
		`{"type":"object","properties":{"query":{"type":"string"}}}`:                                                    "error: requires no property",
		`{"type":"object"}`: "error: requires no property",
		`{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"string"}},"required":["a","b"]}`: "error: requires 2 properties (a, b)",
		`{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}`:                          `error: property "n" has type integer, not string`,
		`{"type":"object","properties":{"n":{}},"required":["n"]}`:                                          `error: property "n" has no type`,
		`{"type":"object","required":["n"]}`:                                                                `error: has no property "n"`,
	} {
		got, err := SkillArgument(json.RawMessage(input))
		if err != nil {
			got = "error: " + err.Error()
		}
		if !strings.HasPrefix(strings.Replace(got, "its input ", "", 1), want) {
			t.Errorf("SkillArgument(%s) = %q, want %q", input, got, want)
		}
	}
	both := json.RawMessage(`{"type":"object","properties":{"q":{"type":"string"},"n":{"type":"integer"}},"required":["q","n"]}`)
	if err := FillableArgument(both, "q"); err == nil || !strings.Contains(err.Error(), "also requires n") {
		t.Errorf("FillableArgument with another required property: %v", err)
	}
}

// mcpConfig is a workspace whose one MCP source has the selectors given, one a
// line from line 9 on.
func mcpConfig(selectors ...string) string {
	return "apiVersion: skillsync/v1\nkind: Workspace\nspec:\n  registry: [registry/*.yaml]\n  mcp: {server: s}\n" +
		"  mcpSources:\n    - name: tracker\n      skills:\n        - " + strings.Join(selectors, "\n        - ") + "\n"
}

func TestSkillSelectorsAreCheckedAtTheirLines(t *testing.T) {
	root := workspace(t, map[string]string{
		ConfigName: mcpConfig(
			"{tool: open_ticket}",
			"{tool: \"open_*\", alias: ticket}",
			"{tool: \"list_[\"}",
			"{tool: drop__all}",
			"{tool: open_ticket, alias: again}",
			"{tool: \"*\", argument: query}",
		),
		"registry/x.yaml": "",
	})
	_, err := Load(root)
	var ps Problems
	if !errors.As(err, &ps) {
		t.Fatalf("load: %v", err)
	}
	want := []string{
		`skillsync.yaml:10:35: alias "ticket" is given for the pattern "open_*"`,
		`skillsync.yaml:11:18: tool pattern "list_[" is not valid`,
		`skillsync.yaml:12:18: the alias the tool "drop__all" would take, "drop--all", is not a valid skill name`,
		`skillsync.yaml:13:18: tool "open_ticket" has a selector already`,
	}
	if len(ps) != len(want) {
		t.Fatalf("problems:\n%v", ps)
	}
	for i, p := range ps {
		if !strings.HasPrefix(p.String(), want[i]) {
			t.Errorf("problem %d: %s\nwant %s", i, p, want[i])
		}
	}
}
