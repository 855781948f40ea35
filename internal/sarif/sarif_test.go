package sarif_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	// The module ships the SARIF 2.1.0 JSON schema testkit.CheckSARIF reads
	// from the module cache; importing it keeps it in go.mod.
	_ "github.com/owenrumney/go-sarif/v3/pkg/report/v210/sarif"

	"github.com/skillsync/skillsync/internal/sarif"
	"github.com/skillsync/skillsync/internal/testkit"
)

var tool = sarif.Tool{Name: "skillsync", Version: "v1.2.3", InformationURI: "https://example.com/skillsync",
	Rules: []sarif.Rule{
		{ID: "skillsync/invalid-input", Description: "The input is invalid.", HelpURI: "https://example.com/docs", Level: sarif.Error},
		{ID: "skillsync/drift", Description: "A file is out of step.", Level: sarif.Error},
	}}

var results = []sarif.Result{
	{RuleID: "skillsync/drift", Level: sarif.Error, Message: "create .claude/skills/a/SKILL.md", File: "registry/skills.yaml", Line: 7, Column: 9},
	{RuleID: "skillsync/invalid-input", Level: sarif.Warning, Message: "unknown key", File: "skillsync.yaml", Line: 3, Column: 1},
	{RuleID: "skillsync/drift", Level: sarif.Error, Message: "delete .claude/skills/old/SKILL.md", File: ".claude/skills/old/SKILL.md"},
	{RuleID: "skillsync/invalid-input", Level: sarif.Error, Message: "odd name", File: "team one/a:b.yaml", Line: 2},
}

func write(t *testing.T, rs []sarif.Result) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := sarif.Write(&buf, tool, rs); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// The log is valid SARIF 2.1.0 by the official schema, and the same results
// in another order give the same bytes.
func TestWriteIsValidAndDeterministic(t *testing.T) {
	got := write(t, results)
	testkit.CheckSARIF(t, got)
	reversed := []sarif.Result{results[3], results[2], results[1], results[0]}
	if again := write(t, reversed); !bytes.Equal(got, again) {
		t.Errorf("the same results in another order gave other bytes:\n%s\n%s", got, again)
	}
}

// Each result names its rule by id and index, and is located at its file
// under the repository root and its line; a result without a line is on the
// file's first line.
func TestWriteLocatesEachResult(t *testing.T) {
	var log struct {
		Schema string `json:"$schema"`
		Runs   []struct {
			Tool struct {
				Driver struct {
					Name, Version, InformationURI string
					Rules                         []struct {
						ID               string
						ShortDescription struct{ Text string }
						HelpURI          string
					}
				}
			}
			Results []struct {
				RuleID    string
				RuleIndex int
				Level     string
				Message   struct{ Text string }
				Locations []struct {
					PhysicalLocation struct {
						ArtifactLocation struct{ URI, URIBaseID string }
						Region           struct{ StartLine, StartColumn int }
					}
				}
			}
		}
	}
	if err := json.Unmarshal(write(t, results), &log); err != nil {
		t.Fatal(err)
	}
	run := log.Runs[0]
	driver := run.Tool.Driver
	if driver.Name != "skillsync" || driver.Version != "v1.2.3" || driver.InformationURI != "https://example.com/skillsync" {
		t.Errorf("driver = %+v", driver)
	}
	if len(driver.Rules) != 2 || driver.Rules[0].ID != "skillsync/drift" || driver.Rules[1].HelpURI != "https://example.com/docs" ||
		driver.Rules[1].ShortDescription.Text != "The input is invalid." {
		t.Errorf("rules = %+v, want them sorted by id with their description and help", driver.Rules)
	}
	type located struct {
		rule         string
		index        int
		level, uri   string
		line, column int
	}
	want := []located{
		{"skillsync/drift", 0, "error", ".claude/skills/old/SKILL.md", 1, 0},
		{"skillsync/drift", 0, "error", "registry/skills.yaml", 7, 9},
		{"skillsync/invalid-input", 1, "warning", "skillsync.yaml", 3, 1},
		{"skillsync/invalid-input", 1, "error", "team%20one/a:b.yaml", 2, 0},
	}
	if len(run.Results) != len(want) {
		t.Fatalf("%d results, want %d", len(run.Results), len(want))
	}
	for i, r := range run.Results {
		loc := r.Locations[0].PhysicalLocation
		got := located{r.RuleID, r.RuleIndex, r.Level, loc.ArtifactLocation.URI, loc.Region.StartLine, loc.Region.StartColumn}
		if got != want[i] || loc.ArtifactLocation.URIBaseID != "%SRCROOT%" || r.Message.Text == "" {
			t.Errorf("result %d = %+v at base %q, want %+v at %%SRCROOT%%", i, got, loc.ArtifactLocation.URIBaseID, want[i])
		}
	}
}

// A result the log could not honestly hold is refused, and nothing is
// written.
func TestWriteRefusesWhatItCannotLocate(t *testing.T) {
	for name, r := range map[string]sarif.Result{
		"unknown rule":   {RuleID: "skillsync/other", Level: sarif.Error, Message: "m", File: "a.yaml"},
		"no message":     {RuleID: "skillsync/drift", Level: sarif.Error, File: "a.yaml"},
		"no level":       {RuleID: "skillsync/drift", Message: "m", File: "a.yaml"},
		"no file":        {RuleID: "skillsync/drift", Level: sarif.Error, Message: "m"},
		"absolute file":  {RuleID: "skillsync/drift", Level: sarif.Error, Message: "m", File: "/etc/passwd"},
		"file outside":   {RuleID: "skillsync/drift", Level: sarif.Error, Message: "m", File: "a/../../b.yaml"},
		"backslash path": {RuleID: "skillsync/drift", Level: sarif.Error, Message: "m", File: `registry\a.yaml`},
	} {
		var buf bytes.Buffer
		err := sarif.Write(&buf, tool, []sarif.Result{r})
		if err == nil || !strings.HasPrefix(err.Error(), "sarif: ") || buf.Len() > 0 {
			t.Errorf("%s: err = %v, %d bytes written; want an error and nothing written", name, err, buf.Len())
		}
	}
}

// fingerprints are the results' fingerprints, in the log's order.
func fingerprints(t *testing.T, rs []sarif.Result) []string {
	t.Helper()
	var log struct {
		Runs []struct {
			Results []struct{ PartialFingerprints map[string]string }
		}
	}
	if err := json.Unmarshal(write(t, rs), &log); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, r := range log.Runs[0].Results {
		out = append(out, r.PartialFingerprints[sarif.FingerprintKey])
	}
	return out
}

// Results at one line have fingerprints of their own, even when they are
// the same; a result keeps its fingerprint when its line moves.
func TestFingerprintsTellResultsApartAndIgnoreTheLine(t *testing.T) {
	at := func(line int, message string) sarif.Result {
		return sarif.Result{RuleID: "skillsync/drift", Level: sarif.Error, Message: message, File: "registry/skills.yaml", Line: line}
	}
	got := fingerprints(t, []sarif.Result{at(7, "create a"), at(7, "create b"), at(9, "create b")})
	if got[0] == got[1] || got[1] == got[2] || got[0] == "" {
		t.Errorf("fingerprints %q: want one of its own for each result", got)
	}
	if !strings.HasSuffix(got[1], ":1") || !strings.HasSuffix(got[2], ":2") || strings.TrimSuffix(got[1], ":1") != strings.TrimSuffix(got[2], ":2") {
		t.Errorf("fingerprints %q: the same result twice should count its occurrences", got)
	}
	if moved := fingerprints(t, []sarif.Result{at(12, "create a")}); moved[0] != got[0] {
		t.Errorf("the result moved from line 7 to 12 changed its fingerprint: %q, then %q", got[0], moved[0])
	}
}
