package desired

import (
	"fmt"
	"path"
	"testing"

	"github.com/skillsync/skillsync/desired/registry"
)

func TestBuildTargetInGit(t *testing.T) {
	reg := example(t)
	cli, _ := ResolveProfile(reg, ProfileSources{Flag: "cli"})
	web, _ := ResolveProfile(reg, ProfileSources{Flag: "web-shell"})
	commit := Git{Mode: registry.GeneratedCommit, Declared: cli}

	st := BuildTargetInGit(reg, web, commit, "qwen-code")
	for p := range BuildTarget(reg, cli, "qwen-code").Files {
		if _, ok := st.Files[path.Join(path.Dir(p), ".gitattributes")]; !ok {
			t.Errorf("no .gitattributes beside committed %s", p)
		}
		if _, ok := st.Files[path.Join(path.Dir(p), ".gitignore")]; ok {
			t.Errorf("a committed skill is ignored: %s", p)
		}
	}
	extra := ".qwen/skills/qwencode-viz/"
	if _, ok := st.Files[extra+"SKILL.md"]; !ok {
		t.Fatal("the active profile's extra skill is missing")
	}
	if _, ok := st.Files[extra+".gitignore"]; !ok {
		t.Error("the extra skill has no .gitignore")
	}
	if _, ok := st.Files[extra+".gitattributes"]; ok {
		t.Error("the extra skill is marked as a committed one")
	}
	for _, w := range st.Withheld {
		if w.Skill == "qwencode-viz" {
			t.Errorf("built and withheld: %+v", w)
		}
	}

	// The declared profile as the active one: what a fresh clone builds.
	clone := BuildTargetInGit(reg, cli, commit, "qwen-code")
	for p := range clone.Files {
		if _, ok := st.Files[p]; !ok {
			t.Errorf("%s is built in a fresh clone but not under the local profile", p)
		}
	}

	ignored := BuildTargetInGit(reg, cli, Git{Mode: registry.GeneratedIgnore}, "agents")
	plain := BuildTarget(reg, cli, "agents")
	skills := 0
	for p := range plain.Files {
		if path.Base(p) == SkillFile {
			skills++
			if _, ok := ignored.Files[path.Join(path.Dir(p), ".gitignore")]; !ok {
				t.Errorf("ignore mode: no .gitignore beside %s", p)
			}
		}
	}
	if len(ignored.Files) != len(plain.Files)+skills {
		t.Errorf("ignore mode: %d files, want %d and one .gitignore per skill", len(ignored.Files), len(plain.Files))
	}
	if got := BuildTargetInGit(reg, cli, Git{}, "agents"); len(got.Files) != len(plain.Files) {
		t.Error("outside git the files differ")
	}
}

// Building the registry as far as some skills go gives exactly their part of the
// whole target: their files, with the same content, and what is withheld of
// them, in every git mode and profile.
func TestSomeSkillsBuildTheirPart(t *testing.T) {
	reg := example(t)
	cli, _ := ResolveProfile(reg, ProfileSources{Flag: "cli"})
	web, _ := ResolveProfile(reg, ProfileSources{Flag: "web-shell"})
	var names []string
	for _, c := range reg.Capabilities {
		if c.Spec.Skill != nil {
			names = append(names, c.Spec.Skill.Alias)
		}
	}
	for _, s := range reg.Skills {
		names = append(names, s.Name)
	}
	gits := []Git{{}, {Mode: registry.GeneratedCommit, Declared: cli}, {Mode: registry.GeneratedIgnore}}
	for _, git := range gits {
		for _, profile := range []Profile{cli, web} {
			for _, target := range []string{"claude-code", "qwen-code", "agents", "cursor"} {
				whole := BuildTargetInGit(reg, profile, git, target)
				for i := range names {
					some := map[string]bool{names[i]: true, names[(i+3)%len(names)]: true}
					part := BuildTargetInGit(reg.WithSkillsNamed(some), profile, git, target)
					want := 0
					for p, f := range whole.Files {
						if !some[f.Skill] {
							continue
						}
						want++
						got, ok := part.Files[p]
						if !ok || got.Owner != f.Owner || got.Sum() != f.Sum() {
							t.Errorf("%s %s %+v: %s is not built alone as in the whole target", target, profile.Name, git.Mode, p)
						}
					}
					if len(part.Files) != want {
						t.Errorf("%s %s %+v, skills %v: %d files built alone, %d in the whole target", target, profile.Name, git.Mode, some, len(part.Files), want)
					}
					var withheld []Withheld
					for _, w := range whole.Withheld {
						if some[w.Skill] {
							withheld = append(withheld, w)
						}
					}
					if fmt.Sprint(part.Withheld) != fmt.Sprint(withheld) {
						t.Errorf("%s %s %+v: withheld alone %v, in the whole target %v", target, profile.Name, git.Mode, part.Withheld, withheld)
					}
				}
			}
		}
	}
}
