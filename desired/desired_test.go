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
	"github.com/skillsync/skillsync/internal/banner"
	"github.com/skillsync/skillsync/internal/testkit"
	"github.com/skillsync/skillsync/internal/workspacefs"
	yaml "go.yaml.in/yaml/v3"
)

func example(t *testing.T) *registry.Registry {
	t.Helper()
	reg, err := registry.Load(workspacefs.OS{}, testkit.Fixture("example"))
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
	if len(st.Files) != 18 {
		t.Errorf("cli profile: %d files, want 5 aliases x 3 targets, and a Codex policy file for each of the 3 write skills in .agents/skills", len(st.Files))
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

// A skill kept from the model gets Codex's policy file beside its SKILL.md where
// Codex reads it, owned like the SKILL.md; a read skill gets none.
func TestBuildWritesCodexPolicyBesideHiddenSkills(t *testing.T) {
	reg := example(t)
	cli, _ := ResolveProfile(reg, ProfileSources{Flag: "cli"})
	st := Build(reg, cli)
	policy, ok := st.Files[".agents/skills/intent/agents/openai.yaml"]
	if !ok {
		t.Fatal("no agents/openai.yaml beside the write skill intent in .agents/skills")
	}
	data, err := policy.Content()
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Policy struct {
			AllowImplicitInvocation *bool `yaml:"allow_implicit_invocation"`
		} `yaml:"policy"`
	}
	if err := yaml.Unmarshal(data, &doc); err != nil || doc.Policy.AllowImplicitInvocation == nil || *doc.Policy.AllowImplicitInvocation {
		t.Errorf("policy file does not read as allow_implicit_invocation: false (%v):\n%s", err, data)
	}
	if mark, unmarked, err := banner.Parse(data); err != nil || mark.Path != policy.Path || mark.Owner != "capability/intents.propose" || !banner.Verify(mark, unmarked) {
		t.Errorf("policy file banner: %+v %v", mark, err)
	}
	for p := range st.Files {
		if strings.HasSuffix(p, "/openai.yaml") && (strings.Contains(p, "/find-intent/") || !strings.HasPrefix(p, ".agents/")) {
			t.Errorf("%s: a policy file for a read skill, or where Codex does not read", p)
		}
	}
}

// Where no client that reads a target can keep a skill from the model, a skill
// that must be kept from it is withheld, unless the workspace allows it.
func TestBuildWithholdsHiddenSkillsWhereNoReaderCanHideThem(t *testing.T) {
	reg := example(t)
	reg.Config.Spec.Targets = []string{"gemini", "github"}
	cli, _ := ResolveProfile(reg, ProfileSources{Flag: "cli"})
	st := Build(reg, cli)
	if _, ok := st.Files[".gemini/skills/intent/SKILL.md"]; ok {
		t.Error("write skill written where only Gemini CLI reads, which cannot hide it")
	}
	if _, ok := st.Files[".gemini/skills/find-intent/SKILL.md"]; !ok {
		t.Error("read skill missing from .gemini/skills")
	}
	if _, ok := st.Files[".github/skills/intent/SKILL.md"]; !ok {
		t.Error("write skill missing from .github/skills, whose reader hides it")
	}
	i := slices.IndexFunc(st.Withheld, func(w Withheld) bool { return w.Skill == "intent" && w.Target == "gemini" })
	if i < 0 || !strings.Contains(st.Withheld[i].Reason, "Gemini CLI") || !strings.Contains(st.Withheld[i].Reason, "unguardedClients: allow") {
		t.Errorf("withheld = %+v", st.Withheld)
	}
	reg.Config.Spec.UnguardedClients = registry.UnguardedAllow
	if _, ok := Build(reg, cli).Files[".gemini/skills/intent/SKILL.md"]; !ok {
		t.Error("unguardedClients: allow, yet the write skill is withheld from .gemini/skills")
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
