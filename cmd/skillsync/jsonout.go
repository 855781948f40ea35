package main

import (
	"github.com/skillsync/skillsync/desired"
)

// The JSON of -o json is the command line's own: these shapes are filled from the
// library's values, so renaming a field in Go never changes what a script reads.
// A list that is never null here is made non-nil on purpose.

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
	Evidence    []string       `json:"evidence"` // null when there is none
	InSync      int            `json:"inSync"`
	ToChange    int            `json:"toChange"`
	Conflicts   int            `json:"conflicts"`
	HandWritten int            `json:"handWritten"`
	Withheld    []withheldJSON `json:"withheld"`
	SeenTwice   []string       `json:"seenTwice"`
	Unguarded   []string       `json:"unguarded"`
}

func clientJSONs(rows []ClientStatus) []clientJSON {
	var out []clientJSON
	for _, r := range rows {
		out = append(out, clientJSON{Client: r.Client, Target: r.Target, Directory: r.Directory, Evidence: r.Evidence,
			InSync: r.InSync, ToChange: r.ToChange, Conflicts: r.Conflicts, HandWritten: r.HandWritten,
			Withheld: withheldJSONs(r.Withheld), SeenTwice: nonNil(r.SeenTwice), Unguarded: nonNil(r.Unguarded)})
	}
	return out
}

// explanationJSON is what explain -o json prints, and list -o json one per name.
type explanationJSON struct {
	Name          string            `json:"name"`
	Declarations  []declarationJSON `json:"declarations"`
	Targets       []targetJSON      `json:"targets"`
	Clients       []clientViewJSON  `json:"clients"`
	Description   string            `json:"description"`
	KeptFromModel bool              `json:"keptFromModel"`
	Effect        string            `json:"effect,omitempty"`
	EffectFrom    string            `json:"effectFrom,omitempty"`
}

type declarationJSON struct {
	Owner string       `json:"owner"`
	At    positionJSON `json:"at"`
}

// positionJSON keeps the keys explain has always printed: the Go names of
// registry.Position's fields, which it once printed untagged.
type positionJSON struct {
	File   string `json:"File"`
	Line   int    `json:"Line"`
	Column int    `json:"Column"`
}

type targetJSON struct {
	Target string `json:"target"`
	Path   string `json:"path"`
	State  string `json:"state"`
	Reason string `json:"reason,omitempty"`
}

type clientViewJSON struct {
	Client  string   `json:"client"`
	Paths   []string `json:"paths"`
	Offered bool     `json:"offered"`
}

func explanationJSONOf(e Explanation) explanationJSON {
	j := explanationJSON{Name: e.Name, Declarations: []declarationJSON{}, Targets: []targetJSON{}, Clients: []clientViewJSON{},
		Description: e.Description, KeptFromModel: e.KeptFromModel, Effect: e.Effect, EffectFrom: e.EffectFrom}
	for _, d := range e.Declarations {
		j.Declarations = append(j.Declarations, declarationJSON{Owner: d.Owner, At: positionJSON{File: d.At.File, Line: d.At.Line, Column: d.At.Column}})
	}
	for _, t := range e.Targets {
		j.Targets = append(j.Targets, targetJSON{Target: t.Target, Path: t.Path, State: t.State, Reason: withForce(t.Reason, t.Override)})
	}
	for _, c := range e.Clients {
		j.Clients = append(j.Clients, clientViewJSON{Client: c.Client, Paths: nonNil(c.Paths), Offered: c.Offered})
	}
	return j
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
