package testkit

import (
	"crypto/sha256"
	"encoding/hex"
	"testing"

	"github.com/skillsync/skillsync/internal/banner"
)

// SkillWithManifest is a generated SKILL.md at path naming files, a path in
// the skill directory to its content, each with the digest of its content.
func SkillWithManifest(t testing.TB, path string, files map[string]string) []byte {
	t.Helper()
	out, err := banner.Open(nil, "skill/s", path)
	if err != nil {
		t.Fatal(err)
	}
	var entries []banner.ManifestEntry
	for p, content := range files {
		sum := sha256.Sum256([]byte(content))
		entries = append(entries, banner.ManifestEntry{Path: p, Digest: hex.EncodeToString(sum[:])})
	}
	if out, err = banner.AppendManifest(out, entries); err != nil {
		t.Fatal(err)
	}
	out = append(out, "name: s\ndescription: d\n---\n\nbody\n"...)
	if err := banner.Seal(out); err != nil {
		t.Fatal(err)
	}
	return out
}
