package registry

import (
	"encoding/json"
	"errors"
	"maps"
	"strings"
	"testing"

	"github.com/skillsync/skillsync/internal/workspacefs"
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
	_, err := Load(workspacefs.OS{}, root)
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

// recordedTool is a capability of the snapshot of tracker, as a refresh records
// it: what the server lists, and no skill, which the selectors give.
func recordedTool(tool, input string) string {
	return "---\napiVersion: skillsync/v1\nkind: Capability\nmetadata: {name: tracker." + tool + "}\nspec:\n  title: " + tool +
		"\n  effect: write\n  input: " + input + "\n  mcp: {server: tracker, tool: " + tool + "}\n"
}

// A recorded skill that does not load is changed at the selector that asked for
// it, so that is where its problems point: at the alias or argument the selector
// gives, else at its tool. Every command shows that place, and a refresh may
// still mend them.
func TestProblemsOfARecordedSkillPointAtItsSelector(t *testing.T) {
	text := `{type: object, properties: {summary: {type: string}}, required: [summary]}`
	root := workspace(t, map[string]string{
		ConfigName: mcpConfig(
			"{tool: \"open_*\"}",
			"{tool: close_ticket, alias: help}",
			"{tool: find_tickets, argument: limit}",
			"{tool: edit_ticket}",
			"{tool: move_ticket}",
		) + "  targets: [claude-code]\n",
		"registry/team.yaml": "apiVersion: skillsync/v1\nkind: Skill\nmetadata: {name: open-ticket}\nspec: {description: Team notes, body: Notes.}\n",
		"registry/mcp-tracker.yaml": recordedTool("open_ticket", text) +
			recordedTool("close_ticket", text) +
			recordedTool("find_tickets", `{type: object, properties: {limit: {type: integer}}}`) +
			recordedTool("edit_ticket", `{type: object, properties: {summary: {type: string}, body: {type: string}}, required: [summary, body]}`) +
			recordedTool("move_ticket", `{type: object, properties: {to: {type: integer}}, required: [to]}`),
	})
	reg, err := Load(workspacefs.OS{}, root)
	var ps Problems
	if !errors.As(err, &ps) {
		t.Fatalf("load: %v", err)
	}
	want := []string{
		`registry/team.yaml:3:18: skill name "open-ticket" is also claimed by capability/tracker.open_ticket at skillsync.yaml:9:18 (aliases and skill names share one namespace)`,
		`skillsync.yaml:9:18: tracker.open_ticket (recorded in registry/mcp-tracker.yaml): alias "open-ticket" is taken by skill/open-ticket at registry/team.yaml:3:18 (aliases and skill names share one namespace; a selector of its own naming open_ticket can give its alias and argument)`,
		`skillsync.yaml:10:39: tracker.close_ticket (recorded in registry/mcp-tracker.yaml): alias "help" is reserved by Claude Code`,
		`skillsync.yaml:11:42: tracker.find_tickets (recorded in registry/mcp-tracker.yaml): argument "limit" has type integer, not string`,
		`skillsync.yaml:12:18: tracker.edit_ticket (recorded in registry/mcp-tracker.yaml): skill has no argument: its input requires 2 properties (summary, body), and the typed text fills one`,
		`skillsync.yaml:13:18: tracker.move_ticket (recorded in registry/mcp-tracker.yaml): skill has no argument: its input property "to" has type integer, not string`,
	}
	if len(ps) != len(want) {
		t.Fatalf("problems:\n%v", ps)
	}
	for i, p := range ps {
		if !strings.HasPrefix(p.String(), want[i]) {
			t.Errorf("problem %d: %s\nwant %s", i, p, want[i])
		}
	}
	if outside := reg.OutsideSnapshots(ps); len(outside) != 0 {
		t.Errorf("a refresh could not mend %v", outside)
	}
}

// A snapshot records what the server lists; skillsync.yaml decides, at every
// load, which tools are capabilities and which are skills: a changed alias, an
// excluded tool or a new selector takes effect without the server.
func TestSelectorsApplyToASnapshotAtLoad(t *testing.T) {
	text := `{type: object, properties: {summary: {type: string}}, required: [summary]}`
	snapshot := recordedTool("open_ticket", text) + recordedTool("close_ticket", text) + recordedTool("drop_ticket", text)
	loaded := func(selectors ...string) map[string]string {
		t.Helper()
		root := workspace(t, map[string]string{
			ConfigName:                  strings.Replace(mcpConfig(selectors...), "      skills:", "      exclude: [drop_*]\n      skills:", 1),
			"registry/mcp-tracker.yaml": snapshot,
		})
		reg, err := Load(workspacefs.OS{}, root)
		if err != nil {
			t.Fatalf("load: %v", err)
		}
		got := map[string]string{}
		for _, c := range reg.Capabilities {
			got[c.ID] = "-"
			if c.Spec.Skill != nil {
				got[c.ID] = c.Spec.Skill.Alias + " " + c.Spec.Skill.Argument
			}
		}
		return got
	}
	if got := loaded("{tool: open_ticket}"); !maps.Equal(got, map[string]string{"tracker.open_ticket": "open-ticket summary", "tracker.close_ticket": "-"}) {
		t.Errorf("loaded %v", got)
	}
	if got := loaded("{tool: open_ticket, alias: open}", "{tool: \"close_*\"}"); !maps.Equal(got, map[string]string{"tracker.open_ticket": "open summary", "tracker.close_ticket": "close-ticket summary"}) {
		t.Errorf("with an alias and a pattern: loaded %v", got)
	}
}

// A selector naming a tool the snapshot records but exclude leaves out says two
// things of one tool: a problem at the selector, which no refresh mends. One
// naming a tool the snapshot does not record waits for the server to list it.
func TestASelectorOfAToolLeftOutIsAProblem(t *testing.T) {
	text := `{type: object, properties: {summary: {type: string}}, required: [summary]}`
	root := workspace(t, map[string]string{
		ConfigName: strings.Replace(mcpConfig("{tool: open_ticket}", "{tool: new_ticket}", "{tool: drop_ticket}"),
			"      skills:", "      exclude: [drop_*]\n      skills:", 1),
		"registry/mcp-tracker.yaml": recordedTool("open_ticket", text) + recordedTool("drop_ticket", text),
	})
	reg, err := Load(workspacefs.OS{}, root)
	var ps Problems
	if !errors.As(err, &ps) || len(ps) != 1 {
		t.Fatalf("load: %v", err)
	}
	want := `skillsync.yaml:12:18: tool "drop_ticket" is left out by the include and exclude patterns of tracker (take it in include, or drop the selector)`
	if ps[0].String() != want {
		t.Errorf("problem: %s\nwant %s", ps[0], want)
	}
	if outside := reg.OutsideSnapshots(ps); len(outside) != 1 {
		t.Errorf("a refresh could mend %v", ps)
	}
	if len(reg.Capabilities) != 1 || reg.Capabilities[0].ID != "tracker.open_ticket" {
		t.Errorf("capabilities %v", reg.Capabilities)
	}
}
