package registry

import (
	"errors"
	"strings"
	"testing"

	"github.com/skillsync/skillsync/internal/workspacefs"
)

func TestASourcesLocationIsWhereItComesFrom(t *testing.T) {
	for _, tc := range []struct {
		src  RemoteSource
		want string
	}{
		{RemoteSource{Git: "https://github.com/acme/skills.git"}, "github.com/acme/skills"},
		{RemoteSource{Git: "ssh://git@git.example.com:2222/acme/skills"}, "git.example.com/acme/skills"},
		{RemoteSource{Git: "git@github.com:acme/skills.git"}, "github.com/acme/skills"},
		{RemoteSource{Git: "file:///srv/skills"}, "file:/srv/skills"},
		{RemoteSource{OCI: "registry.example.com/acme/catalog:2.0"}, "registry.example.com/acme/catalog"},
		{RemoteSource{Index: "https://docs.example.com/.well-known/agent-skills/index.json"}, "docs.example.com/.well-known/agent-skills/index.json"},
	} {
		if got := Location(tc.src); got != tc.want {
			t.Errorf("Location(%+v) = %q, want %q", tc.src, got, tc.want)
		}
	}
	trust := TrustSpec{Sources: []string{"github.com/acme", "registry.example.com/acme/*"}}
	for location, want := range map[string]bool{
		"github.com/acme/skills":            true,
		"github.com/acme/team/skills":       true,
		"github.com/acmecorp/skills":        false,
		"github.com/evil/skills":            false,
		"registry.example.com/acme/catalog": true,
		"registry.example.com/acme/a/b":     true,
		"registry.example.com/acmecorp/a":   false,
		"file:/srv/skills":                  false,
	} {
		if got := trust.Allows(location); got != want {
			t.Errorf("Allows(%s) = %v", location, got)
		}
	}
}

// policed reads sources under an organisation's policy, and counts reads.
type policed struct {
	fakeSources
	policy *Policy
	reads  *int
}

func (p policed) Policy() (*Policy, error) { return p.policy, nil }

func (p policed) ReadSource(src RemoteSource, at LockedSource) ([]SourceFile, error) {
	*p.reads++
	return p.fakeSources.ReadSource(src, at)
}

func TestAWorkspaceNarrowsItsOrganisationsPolicyAndNeverWidensIt(t *testing.T) {
	policy, ps := ParsePolicy("policy.yaml", []byte("apiVersion: skillsync/v1\nkind: Policy\nspec:\n  sources: [git.example.com/team]\n"), nil)
	if len(ps) > 0 {
		t.Fatal(ps)
	}
	held := fakeSources{"team": skillFiles("deploy", "Deploy."), "vendor": skillFiles("lint", "Lint.")}
	for _, tc := range []struct {
		name, trust string
		want        []string
	}{
		{"the policy alone", "", []string{"skillsync.yaml:10:7: source vendor comes from git.example.com/vendor/skills, which the organisation's policy (policy.yaml) does not allow"}},
		{"a workspace that widens it", "  trust:\n    sources: [git.example.com]\n", []string{"source vendor comes from git.example.com/vendor/skills, which the organisation's policy"}},
		{"a workspace that narrows it", "  trust:\n    sources: [git.example.com/team/other]\n", []string{
			"skillsync.yaml:6:7: source team comes from git.example.com/team/skills, which spec.trust.sources does not allow", "source vendor comes from git.example.com/vendor/skills, which the organisation's policy"}},
		{"a malformed pattern", "  trust:\n    sources: [\"git.example.com/[\"]\n", []string{`"git.example.com/[" is not a pattern of source locations`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := workspace(t, map[string]string{ConfigName: sourcesConfig + tc.trust, LockName: lockFor(t, sourceSpecs, held), "registry/none.yaml": ""})
			reads := 0
			_, err := LoadReading(workspacefs.OS{}, root, ConfigName, nil, policed{held, &policy, &reads})
			var ps Problems
			if !errors.As(err, &ps) {
				t.Fatalf("err = %v", err)
			}
			for _, w := range tc.want {
				if !strings.Contains(ps.Error(), w) {
					t.Errorf("problems do not say %q:\n%s", w, ps)
				}
			}
			if reads != 0 {
				t.Errorf("%d sources were read despite the policy", reads)
			}
		})
	}
	if _, ps := ParsePolicy("policy.yaml", []byte("apiVersion: skillsync/v1\nkind: Workspace\nspec: {}\n"), nil); !strings.Contains(ps.Error(), `kind "Workspace" where Policy was expected`) {
		t.Errorf("a policy of another kind: %v", ps)
	}
}

func TestAnAddressThatSeemsToLeadElsewhereIsRefused(t *testing.T) {
	for _, remote := range []string{
		"git@github.com:evil/../acme/skills.git",
		"https://github.com/evil/../acme/skills",
		"https://github.com/evil%2F..%2Facme/skills",
		"https://github.com/acme%2Fevil/skills",
		"file:///srv/allowed/../sl/../allowed/repo",
		"ssh://git@github.com/acme/./skills",
		"file:srv/skills",
		"FILE:srv/skills",
	} {
		if err := CheckGitRemote(remote); err == nil {
			t.Errorf("CheckGitRemote(%q) = nil", remote)
		}
	}
	for _, u := range []string{"https://docs.example.com/a/../b/index.json", "https://docs.example.com/a/%2e%2e/index.json"} {
		if err := CheckIndexURL(u); err == nil {
			t.Errorf("CheckIndexURL(%q) = nil", u)
		}
	}
	if err := CheckGitRemote("https://github.com/acme/skills.git"); err != nil {
		t.Errorf("a plain remote: %v", err)
	}
}

func TestAnEmptyListAllowsNothingByMistake(t *testing.T) {
	for _, policy := range []string{"apiVersion: skillsync/v1\nkind: Policy\nspec: {}\n", "apiVersion: skillsync/v1\nkind: Policy\nspec: {sources: []}\n"} {
		if _, ps := ParsePolicy("policy.yaml", []byte(policy), nil); !strings.Contains(ps.Error(), "the policy lists no location sources may come from") {
			t.Errorf("%q: %v", policy, ps)
		}
	}
	held := fakeSources{"team": skillFiles("deploy", "Deploy."), "vendor": skillFiles("lint", "Lint.")}
	root := workspace(t, map[string]string{ConfigName: sourcesConfig + "  trust: {sources: []}\n", LockName: lockFor(t, sourceSpecs, held), "registry/none.yaml": ""})
	if _, err := LoadReading(workspacefs.OS{}, root, ConfigName, nil, held); err == nil || !strings.Contains(err.Error(), "spec.trust lists no location sources may come from") {
		t.Errorf("an empty spec.trust: %v", err)
	}
}
