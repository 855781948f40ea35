package main

// The status view reads a planned pass for people: per client, what it will
// find and what is amiss. It only reads an Outcome.

import (
	"maps"
	"path"
	"slices"
	"strings"

	"github.com/skillsync/skillsync/clients"
	"github.com/skillsync/skillsync/controller"
	"github.com/skillsync/skillsync/controller/plan"
	"github.com/skillsync/skillsync/desired"
	"github.com/skillsync/skillsync/observed"
)

// ClientStatus is one row of `skillsync status`.
type ClientStatus struct {
	Client    string
	Target    string // empty when no enabled target serves it
	Directory string // the target's skill directory
	Evidence  []string
	InSync    int
	ToChange  int
	Conflicts int
	// HandWritten counts the skills people wrote in the directory.
	HandWritten int
	Withheld    []desired.Withheld
	// SeenTwice are the skills the client would find in two or more of the
	// enabled directories it reads, once the plan is carried out.
	SeenTwice []string
	// Duplicates is what the client does with a name it finds twice.
	Duplicates string
	// Unguarded are the skills to keep from the model that the client, which has
	// no way to, would offer its model: from an enabled directory it shares
	// with clients that can.
	Unguarded []string
	// Personal are the skills it finds here of which the user's home holds a
	// personal copy it reads too; Clash is which of the two its model is shown.
	Personal []PersonalCopy
	Clash    clients.Clash
}

// PersonalCopy is a skill of a project that a client also finds in a personal
// directory, Dir, as ~/dir.
type PersonalCopy struct{ Skill, Dir string }

// clientStatus summarises the plan of a pass per client. evidence and personal
// come from observed.Evidence and observed.Personal.
func clientStatus(out controller.Outcome, evidence map[string][]string, personal observed.PersonalSkills) []ClientStatus {
	in, planned := out.Inputs, out.Plan
	enabled := map[string]bool{}
	for _, t := range in.Registry.Targets() {
		enabled[t] = true
	}
	kept := desired.KeptFromModel(in.Registry)
	var rows []ClientStatus
	for _, c := range clients.All {
		row := ClientStatus{Client: c.Name, Evidence: evidence[c.Name], Withheld: []desired.Withheld{}, SeenTwice: seenTwice(c, enabled, planned),
			Duplicates: strings.ReplaceAll(c.Duplicates, "`", ""),
			Unguarded:  unguarded(c, in.Registry.Config.StrictFrontMatter(), enabled, planned, kept),
			Personal:   []PersonalCopy{}, Clash: c.PersonalClash}
		for _, name := range slices.Sorted(maps.Keys(copiesFound(c, enabled, planned))) {
			if dir := personalCopy(c, personal, name); dir != "" {
				row.Personal = append(row.Personal, PersonalCopy{Skill: name, Dir: dir})
			}
		}
		for _, t := range c.Targets() {
			if enabled[t] {
				row.Target, row.Directory = t, clients.Dir(t)
				break
			}
		}
		if row.Target != "" {
			prefix := row.Directory + "/"
			for _, p := range planned.InSync {
				if strings.HasPrefix(p, prefix) {
					row.InSync++
				}
			}
			for _, ch := range planned.Changes {
				if !strings.HasPrefix(ch.Path, prefix) {
					continue
				}
				switch ch.Action {
				case plan.None:
					row.InSync++
				case plan.Conflict:
					row.Conflicts++
				case plan.Create, plan.Update, plan.Delete:
					row.ToChange++
				}
			}
			for _, p := range out.HandWritten {
				if strings.HasPrefix(p, prefix) {
					row.HandWritten++
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

// unguarded lists the skills in kept that c would find in an enabled directory it
// reads, when c cannot keep a skill from its model (with the specification's
// front matter keys only, when strict).
func unguarded(c clients.Client, strict bool, enabled map[string]bool, planned plan.Plan, kept map[string]bool) []string {
	out := []string{}
	if c.CanHideIn(strict) {
		return out
	}
	for name := range copiesFound(c, enabled, planned) {
		if kept[name] {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}

// seenTwice lists the skills of which the client would find a copy in more than
// one enabled directory it reads.
func seenTwice(c clients.Client, enabled map[string]bool, planned plan.Plan) []string {
	twice := []string{}
	for name, n := range copiesFound(c, enabled, planned) {
		if n > 1 {
			twice = append(twice, name)
		}
	}
	slices.Sort(twice)
	return twice
}

// personalCopy is the first of c's personal directories that holds a skill
// called name, as ~/dir; "" when none does.
func personalCopy(c clients.Client, personal observed.PersonalSkills, name string) string {
	for _, dir := range c.Personal {
		if personal[dir][name] {
			return "~/" + dir
		}
	}
	return ""
}

// copiesFound counts, per skill, the enabled directories c reads that hold it once
// the plan is carried out: every SKILL.md the plan keeps, makes or leaves in
// conflict counts, a deleted one does not.
func copiesFound(c clients.Client, enabled map[string]bool, planned plan.Plan) map[string]int {
	var dirs []string
	for _, t := range c.Targets() {
		if enabled[t] {
			dirs = append(dirs, clients.Dir(t)+"/")
		}
	}
	copies := map[string]int{}
	count := func(p string) {
		for _, d := range dirs {
			if rest, ok := strings.CutPrefix(p, d); ok && strings.Count(rest, "/") == 1 && path.Base(rest) == desired.SkillFile {
				copies[path.Dir(rest)]++
			}
		}
	}
	for _, p := range planned.InSync {
		count(p)
	}
	for _, ch := range planned.Changes {
		if ch.Action == plan.Create || ch.Action == plan.Update || ch.Action == plan.Conflict {
			count(ch.Path)
		}
	}
	return copies
}
