package desired

import (
	"testing"

	"github.com/skillsync/skillsync/desired/registry"
)

func TestAGeneratedSkillSaysWhereItCameFrom(t *testing.T) {
	digest := "sha256:41d0a1e2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f708192a3b4c5d6e"
	for _, tc := range []struct {
		skill registry.Skill
		want  string
	}{
		{registry.Skill{Dir: "skills/release"}, "skills/release/SKILL.md"},
		{registry.Skill{Origin: &registry.SourceOrigin{Source: "team", Git: "https://git.example.com/team/skills.git", Commit: "3f2a", Dir: "skills/deploy", SkillDigest: digest}},
			"source team (git https://git.example.com/team/skills.git, skills/deploy " + digest + ")"},
		// The tag is the lock's to pin: moving it rewrites only what changed.
		{registry.Skill{Origin: &registry.SourceOrigin{Source: "catalog", OCI: "registry.example.com/acme/catalog:2.0", Digest: "sha256:ffff", Dir: "deploy", SkillDigest: digest,
			Signatures: map[string]string{"key sha256:9c1e": "sha256:0d75"}}},
			"source catalog (oci registry.example.com/acme/catalog, deploy " + digest + ", signed by key sha256:9c1e)"},
		{registry.Skill{Origin: &registry.SourceOrigin{Source: "catalog", Git: "https://git.example.com/acme/catalog.git", Dir: "registry/skills.yaml", SkillDigest: digest}},
			"source catalog (git https://git.example.com/acme/catalog.git, registry/skills.yaml " + digest + ")"},
	} {
		if got := skillOrigin(&tc.skill); got != tc.want {
			t.Errorf("skillOrigin = %q, want %q", got, tc.want)
		}
	}
}
