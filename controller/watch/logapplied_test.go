package watch

import (
	"bytes"
	"errors"
	"log/slog"
	"strings"
	"testing"

	"github.com/skillsync/skillsync/controller"
	"github.com/skillsync/skillsync/controller/apply"
	"github.com/skillsync/skillsync/controller/plan"
)

// A change that failed is logged at error whatever level the others are logged
// at, and the others only where the logger takes that level.
func TestLogAppliedKeepsFailuresWhateverTheLevel(t *testing.T) {
	out := controller.Outcome{Applied: []apply.Applied{
		{Change: &plan.Change{Path: ".claude/skills/a/SKILL.md", Action: plan.Create, Owner: "capability/a"}},
		{Change: &plan.Change{Path: ".claude/skills/b/SKILL.md", Action: plan.Update, Owner: "capability/b"}, Err: errors.New("disk full")},
		{Change: &plan.Change{Path: ".claude/skills/c", Action: plan.Cleanup}, Undone: true, Kept: "its parent is read-only"},
	}}
	for _, tc := range []struct {
		takes slog.Level
		want  []string
		not   []string
	}{
		{slog.LevelDebug, []string{"skills/a/SKILL.md", "disk full", "housekeeping left undone"}, nil},
		{slog.LevelInfo, []string{"disk full"}, []string{"skills/a/SKILL.md", "housekeeping"}},
	} {
		var logged bytes.Buffer
		log := slog.New(slog.NewTextHandler(&logged, &slog.HandlerOptions{Level: tc.takes}))
		LogApplied(log, out, slog.LevelDebug)
		for _, w := range tc.want {
			if !strings.Contains(logged.String(), w) {
				t.Errorf("a logger at %v did not log %q:\n%s", tc.takes, w, logged.String())
			}
		}
		for _, n := range tc.not {
			if strings.Contains(logged.String(), n) {
				t.Errorf("a logger at %v logged %q:\n%s", tc.takes, n, logged.String())
			}
		}
	}
}
