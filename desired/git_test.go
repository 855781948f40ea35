package desired

import (
	"fmt"
	"maps"
	"path"
	"slices"
	"strings"
	"testing"

	"github.com/skillsync/skillsync/clients"
	"github.com/skillsync/skillsync/desired/registry"
)

func TestBuildTargetInGit(t *testing.T) {
	reg := example(t)
	cli, _ := ResolveProfile(reg, ProfileSources{Flag: "cli"})
	web, _ := ResolveProfile(reg, ProfileSources{Flag: "web-shell"})
	commit := Git{Mode: registry.GeneratedCommit, Declared: cli}
	withGit := func(st State, git Git, target string) State {
		return st.WithGitFiles(git, target, st.GitLinesByEntry(clients.Dir(target)))
	}

	st := withGit(BuildTargetInGit(reg, web, commit, "qwen-code"), commit, "qwen-code")
	var attributes []string
	for p := range BuildTarget(reg, cli, "qwen-code").Files {
		attributes = append(attributes, "/"+strings.TrimPrefix(p, ".qwen/skills/")+" linguist-generated=true")
	}
	slices.Sort(attributes)
	wantContent(t, st, ".qwen/skills/.gitattributes", append([]string{"/.gitattributes linguist-generated=true"}, attributes...))
	extra := ".qwen/skills/qwencode-viz/"
	if _, ok := st.Files[extra+"SKILL.md"]; !ok {
		t.Fatal("the active profile's extra skill is missing")
	}
	wantContent(t, st, ".qwen/skills/.gitignore", []string{"/.gitignore", "/qwencode-viz/SKILL.md"})
	gitFiles := 0
	for p, f := range st.Files {
		if f.Skill == "" {
			gitFiles++
			if !f.Optional || f.Owner != "target/qwen-code" || path.Dir(p) != ".qwen/skills" {
				t.Errorf("git file %s: %+v", p, f)
			}
		}
	}
	if gitFiles != 2 {
		t.Errorf("%d git files in the target directory, want the two", gitFiles)
	}
	for _, w := range st.Withheld {
		if w.Skill == "qwencode-viz" {
			t.Errorf("built and withheld: %+v", w)
		}
	}

	// The declared profile as the active one, what a fresh clone builds: the one
	// .gitattributes, as under the local profile, and no .gitignore.
	clone := withGit(BuildTargetInGit(reg, cli, commit, "qwen-code"), commit, "qwen-code")
	for p, f := range clone.Files {
		if g, ok := st.Files[p]; !ok || g.Sum() != f.Sum() {
			t.Errorf("%s is built in a fresh clone but not, or otherwise, under the local profile", p)
		}
		if path.Base(p) == ".gitignore" {
			t.Errorf("a fresh clone ignores %s", p)
		}
	}

	ignore := Git{Mode: registry.GeneratedIgnore}
	ignored := withGit(BuildTargetInGit(reg, cli, ignore, "agents"), ignore, "agents")
	plain := BuildTarget(reg, cli, "agents")
	names := []string{"/.gitignore"}
	for p := range plain.Files {
		names = append(names, "/"+strings.TrimPrefix(p, ".agents/skills/"))
	}
	slices.Sort(names)
	wantContent(t, ignored, ".agents/skills/.gitignore", names)
	if len(ignored.Files) != len(plain.Files)+1 {
		t.Errorf("ignore mode: %d files, want %d and the one .gitignore", len(ignored.Files), len(plain.Files))
	}
	if got := withGit(BuildTargetInGit(reg, cli, Git{}, "agents"), Git{}, "agents"); len(got.Files) != len(plain.Files) {
		t.Error("outside git the files differ")
	}
	if none := withGit(BuildTargetInGit(reg, cli, commit, "cursor"), commit, "cursor"); len(none.Files) != 0 {
		t.Errorf("a target with no skills has files: %v", slices.Collect(maps.Keys(none.Files)))
	}
}

// wantContent fails unless st has the file p holding, after its banner, lines.
func wantContent(t *testing.T, st State, p string, lines []string) {
	t.Helper()
	f, ok := st.Files[p]
	if !ok {
		t.Errorf("no %s", p)
		return
	}
	data, err := f.Content()
	if err != nil {
		t.Fatal(err)
	}
	_, body, _ := strings.Cut(string(data), " DO NOT EDIT.\n")
	_, body, _ = strings.Cut(body, "\n")
	if want := strings.Join(lines, "\n") + "\n"; body != want {
		t.Errorf("%s holds\n%s\nwant\n%s", p, data, want)
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

func TestGitLinesMatchABlankAsItself(t *testing.T) {
	st := State{Files: map[string]File{
		".claude/skills/s/my notes .md": {Path: ".claude/skills/s/my notes .md", Target: "claude-code", Skill: "s", Owner: "skill/s", gitIgnored: true},
	}}
	lines := st.GitLinesByEntry(".claude/skills")["s"]
	if len(lines.Ignore) != 1 || lines.Ignore[0] != "/s/my[ ]notes[ ].md" {
		t.Errorf(".gitignore lines = %q: a trailing blank would be dropped, so each is a class", lines.Ignore)
	}
	st.Files[".claude/skills/s/my notes .md"] = File{Path: ".claude/skills/s/my notes .md", Target: "claude-code", Skill: "s", Owner: "skill/s"}
	lines = st.GitLinesByEntry(".claude/skills")["s"]
	if len(lines.Attributes) != 1 || lines.Attributes[0] != "/s/my[ ]notes[ ].md linguist-generated=true" {
		t.Errorf(".gitattributes lines = %q: a blank would end the pattern", lines.Attributes)
	}
}
