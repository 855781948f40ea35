package watch

import "testing"

// The events of skillsync's own writes in flight call for no pass: its temp
// files, everything in a folder of a temp name (a new skill directory is
// written whole in one before it is renamed into place), and its lock.
func TestOwnInFlightWritesAreNotRelevant(t *testing.T) {
	for rel, want := range map[string]bool{
		"skills/release/SKILL.md":                                    true,
		".agents/skills/release/SKILL.md":                            true,
		".agents/skills/release":                                     true,
		".agents/skills/.skillsync-0123456789abcdef.tmp":             false,
		".agents/skills/.skillsync-0123456789abcdef.tmp/SKILL.md":    false,
		".agents/skills/.skillsync-0123456789abcdef.tmp/ref/deep.md": false,
		".agents/skills/release/.skillsync-0123456789abcdef.tmp":     false,
		".agents/skills/release/.skillsync-notatemp.tmp":             true,
		".skillsync/lock":                                            false,
	} {
		if got := relevant(rel); got != want {
			t.Errorf("relevant(%q) = %v, want %v", rel, got, want)
		}
	}
}
