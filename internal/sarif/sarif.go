package sarif

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"path"
	"slices"
	"strings"
)

// Schema is the URI of the SARIF 2.1.0 JSON schema a log names.
const Schema = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"

// SourceRoot is the base every location's URI is relative to: the root of the
// repository the run looked at, which the console reading the log knows.
const SourceRoot = "%SRCROOT%"

// Level is how serious a result is, as SARIF names it.
type Level string

// The levels a result can have.
const (
	Error   Level = "error"
	Warning Level = "warning"
	Note    Level = "note"
)

// Tool is what ran: its name, version, where to read about it, and every rule
// a result can name.
type Tool struct {
	Name, Version, InformationURI string
	Rules                         []Rule
}

// Rule is one kind of result: a stable id, what it means in a sentence, and
// where the documentation says more.
type Rule struct {
	ID          string
	Description string
	HelpURI     string
	Level       Level // the level of its results unless a result says otherwise
}

// Result is one thing found, at a line of a file. File is a slash-separated
// path relative to the repository root; Line and Column count from 1, zero
// when unknown (the result is then on the file's first line).
type Result struct {
	RuleID  string
	Level   Level
	Message string
	File    string
	Line    int
	Column  int
}

// Write writes the log of one run of tool that found results, as indented
// JSON. The results are sorted by file, line, column, rule and message, and
// the rules by id. A result of a rule tool lacks, of no known level, without a
// message or with a file outside the repository is an error, and nothing is
// written.
func Write(w io.Writer, tool Tool, results []Result) error {
	rules := slices.SortedFunc(slices.Values(tool.Rules), func(a, b Rule) int { return strings.Compare(a.ID, b.ID) })
	index := map[string]int{}
	descriptors := make([]reportingDescriptor, 0, len(rules))
	for i, r := range rules {
		if _, dup := index[r.ID]; dup || r.ID == "" {
			return fmt.Errorf("sarif: rule id %q is empty or given twice", r.ID)
		}
		if !r.Level.known() {
			return fmt.Errorf("sarif: rule %s has level %q, not error, warning or note", r.ID, r.Level)
		}
		index[r.ID] = i
		descriptors = append(descriptors, reportingDescriptor{ID: r.ID, ShortDescription: text{r.Description},
			HelpURI: r.HelpURI, DefaultConfiguration: configuration{Level: r.Level}})
	}
	sorted := slices.SortedFunc(slices.Values(results), compareResults)
	out := make([]result, 0, len(sorted))
	seen := map[string]int{}
	for _, r := range sorted {
		i, ok := index[r.RuleID]
		if !ok {
			return fmt.Errorf("sarif: result %q names rule %q, which %s does not declare", r.Message, r.RuleID, tool.Name)
		}
		if !r.Level.known() || r.Message == "" {
			return fmt.Errorf("sarif: result of rule %s needs a message and the level error, warning or note", r.RuleID)
		}
		if !Inside(r.File) {
			return fmt.Errorf("sarif: result of rule %s is at %q, not a slash-separated path inside the repository", r.RuleID, r.File)
		}
		reg := region{StartLine: max(r.Line, 1)}
		if r.Line > 0 && r.Column > 0 {
			reg.StartColumn = r.Column
		}
		id := identity(r)
		seen[id]++
		out = append(out, result{RuleID: r.RuleID, RuleIndex: i, Level: r.Level, Message: text{r.Message},
			PartialFingerprints: map[string]string{FingerprintKey: fmt.Sprintf("%s:%d", id, seen[id])},
			Locations: []location{{PhysicalLocation: physicalLocation{
				ArtifactLocation: artifactLocation{URI: fileURI(r.File), URIBaseID: SourceRoot}, Region: reg}}}})
	}
	doc := log{Schema: Schema, Version: "2.1.0", Runs: []run{{
		Tool: toolJSON{Driver: driver{Name: tool.Name, Version: tool.Version, InformationURI: tool.InformationURI, Rules: descriptors}},
		// Lines and columns come from YAML and the hidden-text scan, which both
		// count code points.
		ColumnKind: "unicodeCodePoints",
		Results:    out,
	}}}
	data, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(data, '\n'))
	return err
}

// FingerprintKey names the fingerprint of each result: its rule, file and
// message, and how many results before it had the same, but not its line, so
// that code scanning tells apart results at one line (a skill's files, all
// declared there) and keeps an alert when lines above it move.
const FingerprintKey = "skillsyncResult/v1"

func identity(r Result) string {
	sum := sha256.Sum256([]byte(r.RuleID + "\x00" + r.File + "\x00" + r.Message))
	return hex.EncodeToString(sum[:16])
}

// Inside tells whether file is a slash-separated path that stays inside the
// directory it is relative to: one a result can be at.
func Inside(file string) bool {
	clean := path.Clean(file)
	return file != "" && !path.IsAbs(file) && !strings.Contains(file, `\`) && clean != "." && clean != ".." && !strings.HasPrefix(clean, "../")
}

func (l Level) known() bool { return l == Error || l == Warning || l == Note }

func compareResults(a, b Result) int {
	return cmp.Or(strings.Compare(a.File, b.File), cmp.Compare(a.Line, b.Line), cmp.Compare(a.Column, b.Column),
		strings.Compare(a.RuleID, b.RuleID), strings.Compare(a.Message, b.Message), strings.Compare(string(a.Level), string(b.Level)))
}

// fileURI is the relative URI reference of a path: each segment escaped, and a
// first segment with a colon kept from reading as a scheme.
func fileURI(file string) string { return (&url.URL{Path: file}).String() }

// The JSON of a log: the part of SARIF 2.1.0 a run of checks needs.
type (
	log struct {
		Schema  string `json:"$schema"`
		Version string `json:"version"`
		Runs    []run  `json:"runs"`
	}
	run struct {
		Tool       toolJSON `json:"tool"`
		ColumnKind string   `json:"columnKind"`
		Results    []result `json:"results"`
	}
	toolJSON struct {
		Driver driver `json:"driver"`
	}
	driver struct {
		Name           string                `json:"name"`
		Version        string                `json:"version,omitempty"`
		InformationURI string                `json:"informationUri,omitempty"`
		Rules          []reportingDescriptor `json:"rules"`
	}
	reportingDescriptor struct {
		ID                   string        `json:"id"`
		ShortDescription     text          `json:"shortDescription"`
		HelpURI              string        `json:"helpUri,omitempty"`
		DefaultConfiguration configuration `json:"defaultConfiguration"`
	}
	configuration struct {
		Level Level `json:"level"`
	}
	text struct {
		Text string `json:"text"`
	}
	result struct {
		RuleID              string            `json:"ruleId"`
		RuleIndex           int               `json:"ruleIndex"`
		Level               Level             `json:"level"`
		Message             text              `json:"message"`
		Locations           []location        `json:"locations"`
		PartialFingerprints map[string]string `json:"partialFingerprints"`
	}
	location struct {
		PhysicalLocation physicalLocation `json:"physicalLocation"`
	}
	physicalLocation struct {
		ArtifactLocation artifactLocation `json:"artifactLocation"`
		Region           region           `json:"region"`
	}
	artifactLocation struct {
		URI       string `json:"uri"`
		URIBaseID string `json:"uriBaseId"`
	}
	region struct {
		StartLine   int `json:"startLine"`
		StartColumn int `json:"startColumn,omitempty"`
	}
)
