package watch

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillsync/skillsync/controller"
	"github.com/skillsync/skillsync/internal/testkit"
	"github.com/skillsync/skillsync/internal/workspacefs"
)

// An input file with a second hard link in a folder no one watches, outside the
// workspace, edited in place through that name: the write sends no event for
// the name the registry reads, and the watcher still converges on it, without
// a resync. The link is there from the start, or made while the watcher runs
// (which sends no event either) and found by the run a save of the input causes.
func TestWatchSeesAnEditThroughAHardLinkElsewhere(t *testing.T) {
	for _, c := range []struct {
		name, input, old, new string
		linkLater             bool
		done                  func(root string) bool
	}{
		{"registry file", "registry/journal.yaml", "title: Weekly report for a team", "title: Weekly report, edited elsewhere", false,
			func(root string) bool { return holds(root, weeklyReport, "Weekly report, edited elsewhere") }},
		{"registry file linked while watched, then saved", "registry/journal.yaml", "title: Weekly report for a team", "title: Weekly report, edited elsewhere", true,
			func(root string) bool { return holds(root, weeklyReport, "Weekly report, edited elsewhere") }},
		{"skillsync.yaml", "skillsync.yaml", "disabled: []", "disabled: [weekly-report]", false,
			func(root string) bool {
				_, err := os.Stat(filepath.Join(root, weeklyReport))
				return os.IsNotExist(err)
			}},
	} {
		t.Run(c.name, func(t *testing.T) {
			root := testkit.ExampleWorkspace(t)
			elsewhere := filepath.Join(t.TempDir(), filepath.Base(c.input))
			link := func() { must(t, os.Link(filepath.Join(root, c.input), elsewhere)) }
			if !c.linkLater {
				link()
			}
			w := startWatcher(t, Options{Request: controller.Request{System: workspacefs.OS{}, Root: root}})
			if c.linkLater {
				// Making a link sends no event here; a save through the input's own
				// name does, and the run it causes finds the link.
				link()
				replaceIn(t, filepath.Join(root, c.input), c.old, c.old+" (saved)")
				await(t, func() bool { return holds(root, weeklyReport, "(saved)") && w.ready() == Converged })
				c.old += " (saved)"
			}
			data, err := os.ReadFile(elsewhere)
			must(t, err)
			f, err := os.OpenFile(elsewhere, os.O_WRONLY|os.O_TRUNC, 0)
			must(t, err)
			_, err = f.Write([]byte(strings.Replace(string(data), c.old, c.new, 1)))
			must(t, err)
			must(t, f.Close())
			await(t, func() bool { return c.done(root) && w.ready() == Converged })
		})
	}
}
