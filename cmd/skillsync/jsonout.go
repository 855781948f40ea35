package main

import (
	"github.com/skillsync/skillsync/clients"
	"github.com/skillsync/skillsync/desired"
	"github.com/skillsync/skillsync/desired/registry"
)

// The JSON of -o json is the command line's own: these shapes are filled from the
// library's values, so renaming a field in Go never changes what a script reads.
// A list that is never null here is made non-nil on purpose. -o yaml prints the
// same documents; schema/output holds a JSON Schema of each kind.

// outputAPIVersion is every output document's apiVersion: the registry's, since
// both are the one contract a release keeps.
const outputAPIVersion = registry.APIVersion

// typeMeta opens every output document, as apiVersion and kind open a
// Kubernetes object, so a script can tell what it reads before reading it.
type typeMeta struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
}

func kindOf(kind string) typeMeta { return typeMeta{APIVersion: outputAPIVersion, Kind: kind} }

// The kinds of output document, one JSON Schema each in schema/output.
const (
	kindReconcileResult = "ReconcileResult"
	kindValidation      = "Validation"
	kindStatus          = "Status"
	kindExplanation     = "Explanation"
	kindSkillList       = "SkillList"
	kindProfile         = "Profile"
	kindProfileList     = "ProfileList"
	kindVersion         = "Version"
	kindOutdated        = "OutdatedReport"
	kindError           = "Error"
)

// errorJSON is what a command asked for -o json or -o yaml prints when it has no
// document of its own kind to print: invalid input, or an error before any.
type errorJSON struct {
	typeMeta
	ExitCode int             `json:"exitCode"`
	Error    string          `json:"error,omitempty"`
	Problems []problemReport `json:"problems"`
}

// validationJSON is what validate prints; the counts are there only when the
// workspace is valid.
type validationJSON struct {
	typeMeta
	Valid    bool            `json:"valid"`
	ExitCode int             `json:"exitCode"`
	Problems []problemReport `json:"problems"`
	// Warnings are what a valid workspace holds that is probably a mistake.
	Warnings []problemReport `json:"warnings"`
	// Notes are front matter keys some targets leave out, because the clients
	// reading them would misread them or do not read them (severity notice).
	Notes []problemReport `json:"notes"`
	*validationCounts
}

type validationCounts struct {
	Profile      string `json:"profile"`
	Files        int    `json:"files"`
	Capabilities int    `json:"capabilities"`
	Skills       int    `json:"skills"`
	Profiles     int    `json:"profiles"`
	Desired      int    `json:"desired"`
	Withheld     int    `json:"withheld"`
}

// statusJSON is what status prints.
type statusJSON struct {
	typeMeta
	Root               string          `json:"root"`
	Profile            string          `json:"profile"`
	ProfileSource      string          `json:"profileSource"`
	ExitCode           int             `json:"exitCode"`
	Clients            []clientJSON    `json:"clients"`
	RecommendedTargets []string        `json:"recommendedTargets"`
	MCPEffects         []mcpEffectJSON `json:"mcpEffects"`
}

// skillListJSON is what list prints: an Explanation per name, each with its own
// apiVersion and kind, as the items of a kubectl List carry theirs.
type skillListJSON struct {
	typeMeta
	Items []explanationJSON `json:"items"`
}

// profileListJSON is what profile list prints.
type profileListJSON struct {
	typeMeta
	Active string        `json:"active"` // "" for the empty profile
	From   string        `json:"from"`   // where the active profile is set; "" when nowhere
	Items  []profileJSON `json:"items"`
}

// profileJSON is one item of a ProfileList.
type profileJSON struct {
	typeMeta
	Name         string   `json:"name"`
	Capabilities []string `json:"capabilities"`
	Active       bool     `json:"active"`
}

// versionJSON is what version prints; its apiVersion is also the registry's this
// build reads.
type versionJSON struct {
	typeMeta
	Version    string `json:"version"`
	Commit     string `json:"commit,omitempty"`
	Modified   bool   `json:"modified,omitempty"`
	CommitDate string `json:"commitDate,omitempty"`
	BuildDate  string `json:"buildDate,omitempty"`
	GoVersion  string `json:"goVersion"`
	Platform   string `json:"platform"`
}

func versionJSONOf(b buildInfo) versionJSON {
	return versionJSON{typeMeta: kindOf(kindVersion), Version: b.Version, Commit: b.Commit, Modified: b.Modified,
		CommitDate: b.CommitDate, BuildDate: b.BuildDate, GoVersion: b.GoVersion, Platform: b.Platform}
}

type withheldJSON struct {
	Skill  string `json:"skill"`
	Owner  string `json:"owner"`
	Target string `json:"target"`
	Reason string `json:"reason"`
	// HandWritten are the people's files holding the skill's name, where that is why.
	HandWritten []string `json:"handWritten,omitempty"`
}

func withheldJSONs(ws []desired.Withheld) []withheldJSON {
	out := make([]withheldJSON, 0, len(ws))
	for _, w := range ws {
		out = append(out, withheldJSON{Skill: w.Skill, Owner: w.Owner, Target: w.Target, Reason: w.Reason, HandWritten: w.HandWritten})
	}
	return out
}

// clientJSON is one entry of status's "clients".
type clientJSON struct {
	Client      string         `json:"client"`
	Target      string         `json:"target"`
	Directory   string         `json:"directory"`
	Evidence    []string       `json:"evidence"`
	InSync      int            `json:"inSync"`
	ToChange    int            `json:"toChange"`
	Conflicts   int            `json:"conflicts"`
	HandWritten int            `json:"handWritten"`
	Withheld    []withheldJSON `json:"withheld"`
	SeenTwice   []string       `json:"seenTwice"`
	Unguarded   []string       `json:"unguarded"`
	// Personal are its skills here of which the home directory holds a copy the
	// client reads too.
	Personal []personalJSON `json:"personal"`
}

// personalJSON is a skill a client finds both here and in a personal directory,
// and which of the two its model is shown.
type personalJSON struct {
	Skill string `json:"skill"`
	Dir   string `json:"dir"`
	Shown string `json:"shown"`
}

// shownToken is the JSON token for which of a personal and a project skill of one
// name a client shows its model.
func shownToken(c clients.Clash) string {
	switch c {
	case clients.ClashPersonal:
		return "personal"
	case clients.ClashProject:
		return "project"
	case clients.ClashBoth:
		return "both"
	case clients.ClashEither:
		return "either"
	}
	return "unknown"
}

func clientJSONs(rows []ClientStatus) []clientJSON {
	out := []clientJSON{}
	for _, r := range rows {
		out = append(out, clientJSON{Client: r.Client, Target: r.Target, Directory: r.Directory, Evidence: nonNil(r.Evidence),
			InSync: r.InSync, ToChange: r.ToChange, Conflicts: r.Conflicts, HandWritten: r.HandWritten,
			Withheld: withheldJSONs(r.Withheld), SeenTwice: nonNil(r.SeenTwice), Unguarded: nonNil(r.Unguarded), Personal: []personalJSON{}})
		for _, p := range r.Personal {
			out[len(out)-1].Personal = append(out[len(out)-1].Personal, personalJSON{Skill: p.Skill, Dir: p.Dir, Shown: shownToken(r.Clash)})
		}
	}
	return out
}

// explanationJSON is what explain -o json prints, and list -o json one per name.
type explanationJSON struct {
	typeMeta
	Name          string            `json:"name"`
	Declarations  []declarationJSON `json:"declarations"`
	Targets       []targetJSON      `json:"targets"`
	Clients       []clientViewJSON  `json:"clients"`
	Description   string            `json:"description"`
	KeptFromModel bool              `json:"keptFromModel"`
	Effect        string            `json:"effect,omitempty"`
	EffectFrom    string            `json:"effectFrom,omitempty"`
	// The skill directory it is read from, and the files in it written beside
	// each SKILL.md; absent for a skill without one.
	Dir   string   `json:"dir,omitempty"`
	Files []string `json:"files,omitempty"`
	// Source is the source the skill comes from, as skillsync.lock pins it;
	// absent for a skill the workspace declares.
	Source *sourceOriginJSON `json:"source,omitempty"`
	// Shadows names the sources whose skill of this name the workspace's own
	// replaces.
	Shadows []string `json:"shadows,omitempty"`
	// Allowed are the findings of the scan the source's allow lets through
	// in this skill, each with where it is.
	Allowed []string `json:"allowed,omitempty"`
	// FrontMatter is, per front matter key of a registry Skill beyond name and
	// description, the targets whose files carry it and those that leave it
	// out, and what the clients reading them do with it; absent for a skill
	// with none.
	FrontMatter []keyNoteJSON `json:"frontMatter,omitempty"`
}

type sourceOriginJSON struct {
	Name   string `json:"name"`
	Git    string `json:"git,omitempty"`
	Commit string `json:"commit,omitempty"`
	Index  string `json:"index,omitempty"`
	OCI    string `json:"oci,omitempty"`
	// Digest is what pins an OCI source (its manifest's) or an index (its own).
	Digest string `json:"digest,omitempty"`
	// Dir is the skill's folder in the source, or the registry file of it
	// that declares the skill.
	Dir string `json:"dir"`
	// Signatures maps each signer the source must be signed by ("key
	// sha256:…" or "IDENTITY (ISSUER)") to the digest of its signature that
	// verified.
	Signatures map[string]string `json:"signatures,omitempty"`
}

type keyNoteJSON struct {
	Key     string           `json:"key"`
	At      positionJSON     `json:"at"`
	Written []string         `json:"written"`
	Dropped []string         `json:"dropped"`
	Facts   []clientFactJSON `json:"facts"`
}

type clientFactJSON struct {
	Client string `json:"client"`
	Fact   string `json:"fact"`
}

type declarationJSON struct {
	Owner string       `json:"owner"`
	At    positionJSON `json:"at"`
}

// positionJSON is a place in a file, keyed as a problem's place is.
type positionJSON struct {
	File   string `json:"file"`
	Line   int    `json:"line"`
	Column int    `json:"column"`
}

type targetJSON struct {
	Target string `json:"target"`
	Path   string `json:"path"`
	// State is one token of targetStates.
	State  string `json:"state"`
	Reason string `json:"reason,omitempty"`
}

type clientViewJSON struct {
	Client  string   `json:"client"`
	Paths   []string `json:"paths"`
	Offered bool     `json:"offered"`
	// Personal is the personal directory that holds a skill of the same name, and
	// Shown which of the two the client's model is shown; absent for none.
	Personal string `json:"personal,omitempty"`
	Shown    string `json:"shown,omitempty"`
}

func explanationJSONOf(e Explanation) explanationJSON {
	j := explanationJSON{typeMeta: kindOf(kindExplanation), Name: e.Name, Declarations: []declarationJSON{}, Targets: []targetJSON{}, Clients: []clientViewJSON{},
		Description: e.Description, KeptFromModel: e.KeptFromModel, Effect: e.Effect, EffectFrom: e.EffectFrom, Dir: e.Dir, Files: e.Files, Shadows: e.Shadows, Allowed: e.Allowed}
	if o := e.Source; o != nil {
		j.Source = &sourceOriginJSON{Name: o.Source, Git: o.Git, Commit: o.Commit, Index: o.Index, OCI: o.OCI, Digest: o.Digest, Dir: o.Dir, Signatures: o.Signatures}
	}
	for _, d := range e.Declarations {
		j.Declarations = append(j.Declarations, declarationJSON{Owner: d.Owner, At: positionJSON{File: d.At.File, Line: d.At.Line, Column: d.At.Column}})
	}
	for _, n := range e.FrontMatter {
		note := keyNoteJSON{Key: n.Key, At: positionJSON{File: n.At.File, Line: n.At.Line, Column: n.At.Column},
			Written: nonNil(n.Written), Dropped: nonNil(n.Dropped), Facts: []clientFactJSON{}}
		for _, f := range n.Facts {
			note.Facts = append(note.Facts, clientFactJSON{Client: f.Client, Fact: f.Fact})
		}
		j.FrontMatter = append(j.FrontMatter, note)
	}
	for _, t := range e.Targets {
		j.Targets = append(j.Targets, targetJSON{Target: t.Target, Path: t.Path, State: stateToken(t.State), Reason: withForce(t.Reason, t.Override)})
	}
	for _, c := range e.Clients {
		view := clientViewJSON{Client: c.Client, Paths: nonNil(c.Paths), Offered: c.Offered, Personal: c.Personal}
		if c.Personal != "" {
			view.Shown = shownToken(c.Clash)
		}
		j.Clients = append(j.Clients, view)
	}
	return j
}

// targetStates turns the words text output uses for a skill's state in a target
// into the camelCase tokens of JSON, which a script compares without knowing
// English; a state that is one word already is its own token.
var targetStates = map[string]string{"in sync": "inSync", "hand-written": "handWritten"}

// targetStateTokens are every state a target may be in, for the schema.
var targetStateTokens = []string{"inSync", "create", "update", "delete", "cleanup", "conflict", "withheld", "handWritten"}

func stateToken(state string) string {
	if token, ok := targetStates[state]; ok {
		return token
	}
	return state
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// mcpEffectJSON is one entry of status's "mcpEffects".
type mcpEffectJSON struct {
	Capability string `json:"capability"`
	Server     string `json:"server"`
	Tool       string `json:"tool"`
	Effect     string `json:"effect"`
	From       string `json:"from"`
}

func mcpEffectJSONs(effects []MCPEffect) []mcpEffectJSON {
	out := make([]mcpEffectJSON, 0, len(effects))
	for _, e := range effects {
		out = append(out, mcpEffectJSON(e))
	}
	return out
}
