package desired

import (
	"bytes"
	"crypto/sha256"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/skillsync/skillsync/clients"
	"github.com/skillsync/skillsync/desired/registry"
)

func example(t *testing.T) *registry.Registry {
	t.Helper()
	reg, err := registry.Load("../fixtures/example")
	if err != nil {
		t.Fatal(err)
	}
	return reg
}

func TestResolveProfilePrecedence(t *testing.T) {
	reg := example(t) // spec.profile: cli
	cases := []struct {
		src        ProfileSources
		name, from string
	}{
		{ProfileSources{Flag: "web-shell", Env: "cli", ProfileFile: "cli\n"}, "web-shell", "--profile"},
		{ProfileSources{Env: "web-shell", ProfileFile: "cli\n"}, "web-shell", ProfileEnv},
		{ProfileSources{ProfileFile: " web-shell \n"}, "web-shell", ProfileFile},
		{ProfileSources{}, "cli", "spec.profile"},
	}
	for _, c := range cases {
		p, problem := ResolveProfile(reg, c.src)
		if problem != nil || p.Name != c.name || p.Source != c.from {
			t.Errorf("%+v: got %s from %s (%v), want %s from %s", c.src, p.Name, p.Source, problem, c.name, c.from)
		}
	}
	reg.Config.Spec.Profile = ""
	if p, _ := ResolveProfile(reg, ProfileSources{}); p.Name != "" || len(p.Capabilities) != 0 {
		t.Errorf("nothing set: got %+v, want the empty profile", p)
	}
	_, problem := ResolveProfile(reg, ProfileSources{Env: "nope"})
	if problem == nil || problem.Pos.File != "$"+ProfileEnv || !bytes.Contains([]byte(problem.Hint), []byte("web-shell")) {
		t.Errorf("unknown profile problem = %+v", problem)
	}
}

func TestBuildGatesOnProfileAndTargets(t *testing.T) {
	reg := example(t)
	gated := ".qwen/skills/qwencode-viz/SKILL.md"
	cli, _ := ResolveProfile(reg, ProfileSources{Flag: "cli"})
	st := Build(reg, cli)
	if _, ok := st.Files[gated]; ok {
		t.Error("gated skill projected under a profile that lacks its capability")
	}
	if len(st.Files) != 15 {
		t.Errorf("cli profile: %d files, want 5 aliases x 3 targets", len(st.Files))
	}
	web, _ := ResolveProfile(reg, ProfileSources{Flag: "web-shell"})
	st = Build(reg, web)
	if _, ok := st.Files[gated]; !ok {
		t.Error("gated skill missing under web-shell")
	}
	want := []Withheld{
		{Skill: "qwencode-viz", Owner: "skill/qwencode-viz", Target: "agents", Reason: "skill is limited to qwen-code"},
		{Skill: "qwencode-viz", Owner: "skill/qwencode-viz", Target: "claude-code", Reason: "skill is limited to qwen-code"},
	}
	if diff := cmp.Diff(want, st.Withheld); diff != "" {
		t.Errorf("withheld (-want +got):\n%s", diff)
	}
}

func TestBuildDisabledAndTargetSubset(t *testing.T) {
	reg := example(t)
	reg.Config.Spec.Disabled = []string{"intent"}
	reg.Config.Spec.Targets = []string{"claude-code"}
	p, _ := ResolveProfile(reg, ProfileSources{})
	st := Build(reg, p)
	for path := range st.Files {
		if path[:len(".claude/")] != ".claude/" || bytes.Contains([]byte(path), []byte("/intent/")) {
			t.Errorf("unexpected file %s", path)
		}
	}
	var reasons []string
	for _, w := range st.Withheld {
		if w.Skill == "intent" {
			reasons = append(reasons, w.Target+": "+w.Reason)
		}
	}
	if !slices.Equal(reasons, []string{"claude-code: disabled in skillsync.yaml"}) {
		t.Errorf("intent withheld as %v", reasons)
	}
}

func TestBuildIsDeterministic(t *testing.T) {
	reg := example(t)
	p, _ := ResolveProfile(reg, ProfileSources{Flag: "web-shell"})
	first := Build(reg, p)
	for i := 0; i < 20; i++ {
		again := Build(example(t), p)
		if diff := cmp.Diff(first, again, cmpopts.IgnoreUnexported(File{})); diff != "" {
			t.Fatalf("build %d differs:\n%s", i, diff)
		}
		// The content is rendered when asked for; it must be the same every time.
		for path, f := range first.Files {
			a, errA := f.Content()
			b, errB := again.Files[path].Content()
			if errA != nil || errB != nil || !bytes.Equal(a, b) || f.Sum() != sha256.Sum256(a) {
				t.Fatalf("build %d: %s renders differently (%v, %v)", i, path, errA, errB)
			}
		}
	}
}

// Planning a target at a time sees exactly what Build sees: the union of the
// targets' files and withheld skills is Build's, and no target holds another's file.
func TestBuildTargetPartitionsBuild(t *testing.T) {
	reg := example(t)
	for _, flag := range []string{"web-shell", ""} {
		p, _ := ResolveProfile(reg, ProfileSources{Flag: flag})
		all := Build(reg, p)
		union := State{Profile: all.Profile, Files: map[string]File{}}
		for _, tg := range clients.Targets {
			target, dir := tg.Name, tg.Dir
			part := BuildTarget(reg, p, target)
			for path, f := range part.Files {
				if f.Target != target || !strings.HasPrefix(path, dir+"/") {
					t.Errorf("BuildTarget(%s) holds %s for %s", target, path, f.Target)
				}
				union.Files[path] = f
			}
			for _, w := range part.Withheld {
				if w.Target != target {
					t.Errorf("BuildTarget(%s) withholds %s from %s", target, w.Skill, w.Target)
				}
			}
			union.Withheld = append(union.Withheld, part.Withheld...)
		}
		SortWithheld(union.Withheld)
		if len(all.Files) == 0 || len(all.Withheld) == 0 {
			t.Fatalf("profile %q: the example should give files and withheld skills, got %d and %d", flag, len(all.Files), len(all.Withheld))
		}
		if diff := cmp.Diff(all, union, cmpopts.IgnoreUnexported(File{})); diff != "" {
			t.Errorf("profile %q: targets one at a time differ from Build (-Build +union):\n%s", flag, diff)
		}
	}
}
