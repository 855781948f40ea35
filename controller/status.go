package controller

import (
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
		row := ClientStatus{Client: c.Name, Evidence: evidence[c.Name], Withheld: []desired.Withheld{}}
		for _, t := range c.Targets() {
			if enabled[t] {
				row.Target, row.Directory = t, desired.TargetDir(t)
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
