package watch

import (
	"context"
	"crypto/sha256"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/skillsync/skillsync/controller"
	"github.com/skillsync/skillsync/controller/plan"
	"github.com/skillsync/skillsync/internal/testkit"
	"github.com/skillsync/skillsync/internal/testkit/property"
	"github.com/skillsync/skillsync/internal/workspacefs"
)

// incrementalCases is how many steps the incremental property test takes.
func incrementalCases(t *testing.T) int { return property.Cases(t, "INCREMENTAL_CASES", 200) }

// A watcher's pass, through the caches it keeps and fed with the events real
// inotify delivers, plans exactly what a pass from scratch plans, after every
// step of a random sequence: registry files edited, broken, renamed and deleted,
// a document of one added, removed, swapped with another or split by a stray ---,
// the profile switched, the config changed, generated files edited by hand,
// deleted or renamed, skill directories removed, renamed to another case,
// replaced by files or symlinks, temp files and empty directories left, a
// person's skill written, a target directory removed, the workspace taken in and
// out of git and its git mode switched, a target's git file edited, removed or
// replaced by a person's, and passes that apply.
func TestIncrementalAgreesWithFromScratch(t *testing.T) {
	seed := property.Seed(t, "INCREMENTAL_SEED")
	rng := rand.New(rand.NewPCG(seed, seed))
	root := testkit.ExampleWorkspace(t)
	outside := t.TempDir()
	inf := controller.NewInformer()
	req := controller.Request{System: workspacefs.OS{}, Root: root}
	src, sync := watchedBy(t, req, inf)
	check := req
	check.Check = true
	var steps []string
	compare := func(i int) *controller.Scope {
		t.Helper()
		sync()
		out := src.pass(inf, check)
		got := planSummary(out)
		want := planSummary(controller.Reconcile(controller.Request{System: workspacefs.OS{}, Root: root, Check: true}))
		if got != want {
			t.Fatalf("after step %d (%s), the watcher's pass plans otherwise than a pass from scratch (replay: INCREMENTAL_SEED=%d INCREMENTAL_CASES=%d)\n"+
				"steps: %s\n--- watcher\n%s\n--- from scratch\n%s", i, steps[len(steps)-1], seed, i+1, strings.Join(steps, "; "), got, want)
		}
		return out.Scope
	}
	partial := 0
	for i := range incrementalCases(t) {
		steps = append(steps, property.RandomStep(t, rng, root, outside, func() (int, error) { out := src.pass(inf, req); return len(out.Applied), out.Err }))
		if scope := compare(i); scope != nil && !scope.Full {
			partial++
		}
		// The comparison means something only if passes read part of the
		// workspace, which a stretch of invalid inputs keeps from happening: so
		// every so often the workspace is put right, and the pass after a lone
		// edit must be a partial one, whatever the seed.
		if i%property.ProbeEvery == property.ProbeEvery-1 {
			steps = append(steps, property.ResetWorkspace(t, root))
			compare(i)
			src.pass(inf, req)
			// The pass after one that made directories watches them, and a pass
			// after that finds the watches in place.
			compare(i)
			compare(i)
			data, err := os.ReadFile(filepath.Join(root, "registry/journal.yaml"))
			if err != nil {
				t.Fatal(err)
			}
			testkit.WriteFile(t, root, "registry/journal.yaml", []byte(strings.Replace(string(data), "title: Weekly", fmt.Sprintf("title: Probe %d Weekly", i), 1)))
			steps = append(steps, "retitle registry/journal.yaml")
			if scope := compare(i); scope == nil || scope.Full {
				t.Fatalf("after step %d, a lone edit of a workspace put right made a full pass (replay: INCREMENTAL_SEED=%d INCREMENTAL_CASES=%d)\nsteps: %s",
					i, seed, i+1, strings.Join(steps, "; "))
			}
		}
	}
	t.Logf("%d of %d random passes read part of the workspace", partial, incrementalCases(t))
}

// watchedBy starts a watcher's change source on the workspace of req, feeding
// inf, and returns it with a function that returns once every event of
// what was changed before it was called has been noted.
func watchedBy(t *testing.T, req controller.Request, inf *controller.Informer) (*changeSource, func()) {
	t.Helper()
	o := Options{Request: req, informer: inf, Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Health: &Tracker{}}
	src, err := newChangeSource(o, newQueue(time.Hour, time.Hour), nil)
	if err != nil {
		t.Fatal(err)
	}
	sentinels := make(chan string, 64)
	src.seen = func(rel string) {
		if strings.HasPrefix(rel, "sentinel-") {
			sentinels <- rel
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	go src.run(ctx)
	t.Cleanup(func() {
		cancel()
		src.close()
	})
	n := 0
	return src, func() {
		// Events come in order: once the sentinel's has come, every earlier one has.
		n++
		name := fmt.Sprintf("sentinel-%d", n)
		testkit.WriteFile(t, req.Root, name, nil)
		deadline := time.After(30 * time.Second)
		for {
			select {
			case got := <-sentinels:
				if got == name {
					os.Remove(filepath.Join(req.Root, name))
					return
				}
			case <-deadline:
				t.Fatalf("no event for %s", name)
			}
		}
	}
}

// planSummary is what a pass found and planned, as text to compare.
func planSummary(out controller.Outcome) string {
	var b strings.Builder
	fmt.Fprintf(&b, "err: %v\nproblems: %v\nrefused: %q\n", out.Err, out.Problems, out.Plan.Refused)
	for _, c := range out.Plan.Changes {
		content, err := c.Content()
		if c.Action == plan.Conflict || c.Action == plan.Delete {
			content, err = nil, nil
		}
		fmt.Fprintf(&b, "%s %s %s %q old %x new %x %v %v %v\n", c.Action, c.Path, c.Owner, c.Reason, c.OldSum[:4], sha256.Sum256(content), err, c.Obstruction, c.Override)
	}
	fmt.Fprintf(&b, "in sync: %v\n", out.Plan.InSync)
	for _, w := range out.Withheld {
		fmt.Fprintf(&b, "withheld %s %s %s: %s %v\n", w.Skill, w.Owner, w.Target, w.Reason, w.HandWritten)
	}
	fmt.Fprintf(&b, "hand-written: %v\n", out.HandWritten)
	return b.String()
}
