package controller

import (
	"path"
	"slices"
	"strings"

	"github.com/skillsync/skillsync/clients"
	"github.com/skillsync/skillsync/desired"
)

// ClientStatus is one row of `skillsync status`.
type ClientStatus struct {
	Client    string             `json:"client"`
	Target    string             `json:"target"`    // empty when no enabled target serves it
	Directory string             `json:"directory"` // the target's skill directory
	Evidence  []string           `json:"evidence"`
	InSync    int                `json:"inSync"`
	ToChange  int                `json:"toChange"`
	Conflicts int                `json:"conflicts"`
	Withheld  []desired.Withheld `json:"withheld"`
	// SeenTwice are the skills the client would find in two or more of the
	// enabled directories it reads, once the plan is carried out.
	SeenTwice []string `json:"seenTwice"`
}

// Status summarises the plan of a pass per client. evidence comes from
// observed.Evidence.
func Status(out Outcome, evidence map[string][]string) []ClientStatus {
	in, plan := out.Inputs, out.Plan
	enabled := map[string]bool{}
	for _, t := range in.Registry.Targets() {
		enabled[t] = true
	}
	var rows []ClientStatus
	for _, c := range clients.All {
		row := ClientStatus{Client: c.Name, Evidence: evidence[c.Name], Withheld: []desired.Withheld{}, SeenTwice: seenTwice(c, enabled, plan)}
		for _, t := range c.Targets() {
			if enabled[t] {
				row.Target, row.Directory = t, clients.Dir(t)
				break
			}
		}
		if row.Target != "" {
			prefix := row.Directory + "/"
			for _, p := range plan.InSync {
				if strings.HasPrefix(p, prefix) {
					row.InSync++
				}
			}
			for _, ch := range plan.Changes {
				if !strings.HasPrefix(ch.Path, prefix) {
					continue
				}
				switch ch.Action {
				case None:
					row.InSync++
				case Conflict:
					row.Conflicts++
				case Create, Update, Delete:
					row.ToChange++
				}
			}
			for _, w := range out.Withheld {
				if w.Target == row.Target {
					row.Withheld = append(row.Withheld, w)
				}
			}
		}
		rows = append(rows, row)
	}
	return rows
}

// seenTwice lists the skills of which the client would find a copy in more than
// one enabled directory it reads: every file the plan keeps, makes or leaves in
// conflict counts, a deleted one does not.
func seenTwice(c clients.Client, enabled map[string]bool, plan Plan) []string {
	var dirs []string
	for _, t := range c.Targets() {
		if enabled[t] {
			dirs = append(dirs, clients.Dir(t)+"/")
		}
	}
	if len(dirs) < 2 {
		return []string{}
	}
	copies := map[string]int{}
	count := func(p string) {
		for _, d := range dirs {
			if rest, ok := strings.CutPrefix(p, d); ok && strings.Count(rest, "/") == 1 {
				copies[path.Dir(rest)]++
			}
		}
	}
	for _, p := range plan.InSync {
		count(p)
	}
	for _, ch := range plan.Changes {
		if ch.Action == Create || ch.Action == Update || ch.Action == Conflict {
			count(ch.Path)
		}
	}
	twice := []string{}
	for name, n := range copies {
		if n > 1 {
			twice = append(twice, name)
		}
	}
	slices.Sort(twice)
	return twice
}
