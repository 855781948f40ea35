package desired

import (
	"path"
	"slices"

	"github.com/skillsync/skillsync/clients"
	"github.com/skillsync/skillsync/desired/registry"
)

// A KeyNote is what becomes of one front matter key of a registry Skill in the
// targets it is written to: the files that carry the key, those that leave it
// out, and what each client reading one of them is known to do with it.
type KeyNote struct {
	Skill   string
	Key     string
	At      registry.Position
	Written []string
	Dropped []string
	Facts   []ClientFact
}

// A ClientFact is what the client table says a client does with a key.
type ClientFact struct {
	Client, Fact string
}

// specKeys are the keys of the Agent Skills specification beyond name and
// description, which every target's files carry.
var specKeys = []string{"license", "compatibility", "metadata", "allowed-tools"}

// KeyNotes are the notes on every front matter key of the registry Skills that
// st, built from reg, writes somewhere. disable-model-invocation is left to the
// guard: a client that does not read it is shown a side file, or the skill is
// withheld from it, and explain says which.
func KeyNotes(reg *registry.Registry, st State) []KeyNote {
	targetsOf := map[string][]string{} // owner -> targets its SKILL.md is written to
	for _, f := range st.Files {
		if path.Base(f.Path) == SkillFile && !f.Supporting() && f.Target != "" {
			targetsOf[f.Owner] = append(targetsOf[f.Owner], f.Target)
		}
	}
	var notes []KeyNote
	for _, sk := range reg.Skills {
		notes = append(notes, KeyNotesOf(reg, sk, targetsOf["skill/"+sk.Name])...)
	}
	return notes
}

// KeyNotesOf are the notes on the front matter keys of sk, written to targets.
func KeyNotesOf(reg *registry.Registry, sk registry.Skill, targets []string) []KeyNote {
	targets = ordered(targets)
	if len(targets) == 0 {
		return nil
	}
	var notes []KeyNote
	for _, key := range sk.FrontMatterKeys() {
		if key == "disable-model-invocation" {
			continue
		}
		n := KeyNote{Skill: sk.Name, Key: key, At: sk.KeyAt(key)}
		for _, t := range targets {
			if writes(reg, t, key) {
				n.Written = append(n.Written, t)
			} else {
				n.Dropped = append(n.Dropped, t)
			}
		}
		n.Facts = factsOf(targets, key)
		notes = append(notes, n)
	}
	return notes
}

// writes says the SKILL.md files of target carry key.
func writes(reg *registry.Registry, target, key string) bool {
	if slices.Contains(specKeys, key) {
		return true
	}
	f, _ := clients.FormatOf(target)
	if reg.Config.StrictFrontMatter() {
		f = f.Strict()
	}
	return slices.Contains(f.Keys, key)
}

// factsOf are the facts the client table records on key for the clients that
// read any of targets.
func factsOf(targets []string, key string) []ClientFact {
	var out []ClientFact
	for _, c := range clients.All {
		reads := slices.ContainsFunc(targets, func(t string) bool { return slices.Contains(c.Reads, clients.Dir(t)) })
		if fact, ok := c.KeyFact(key); reads && ok {
			out = append(out, ClientFact{Client: c.Name, Fact: fact})
		}
	}
	return out
}

// ordered is targets in the order of the client table's targets.
func ordered(targets []string) []string {
	var out []string
	for _, t := range clients.TargetNames() {
		if slices.Contains(targets, t) {
			out = append(out, t)
		}
	}
	return out
}
