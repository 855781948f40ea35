package workspacegen

import (
	"path/filepath"
	"testing"

	"github.com/skillsync/skillsync/controller"
	"github.com/skillsync/skillsync/controller/plan"
	"github.com/skillsync/skillsync/internal/workspacefs"
)

// The generated workspace is valid and generates exactly Files(n) skill files, so
// every benchmark figure is about the tree it claims to be.
func TestWrittenWorkspaceReconcilesToFiles(t *testing.T) {
	for _, n := range []int{1, 120} {
		dir := filepath.Join(t.TempDir(), "ws")
		if err := Write(dir, n, nil, nil); err != nil {
			t.Fatal(err)
		}
		out := controller.Reconcile(controller.Request{System: workspacefs.OS{}, Root: dir})
		if len(out.Problems) > 0 || out.Err != nil {
			t.Fatalf("n=%d: %v %v", n, out.Problems, out.Err)
		}
		if got := out.Plan.Count(plan.Create); got != Files(n) {
			t.Errorf("n=%d: %d files to create, want %d", n, got, Files(n))
		}
		if len(out.Applied) != Files(n) {
			t.Errorf("n=%d: %d files written, want %d", n, len(out.Applied), Files(n))
		}
	}
}

func TestRetitleAndDropChangeOnlyThoseCapabilities(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "ws")
	if err := Write(dir, 120, nil, nil); err != nil {
		t.Fatal(err)
	}
	if out := controller.Reconcile(controller.Request{System: workspacefs.OS{}, Root: dir}); out.Err != nil || len(out.Problems) > 0 {
		t.Fatal(out.Err, out.Problems)
	}
	if err := Write(dir, 120, map[int]string{7: "Renamed"}, map[int]bool{60: true}); err != nil {
		t.Fatal(err)
	}
	out := controller.Reconcile(controller.Request{System: workspacefs.OS{}, Root: dir, Check: true})
	if len(out.Problems) > 0 || out.Err != nil {
		t.Fatal(out.Problems, out.Err)
	}
	if got := out.Plan.Pending(); got != 6 {
		t.Errorf("%d changes pending, want 3 updates and 3 deletes", got)
	}
}

// BenchmarkReconcile profiles the in-process pipeline on 1 000 capabilities:
// go test ./test/bench/workspacegen -run - -bench . -cpuprofile cpu.out
func BenchmarkReconcile(b *testing.B) {
	dir := filepath.Join(b.TempDir(), "ws")
	if err := Write(dir, 1000, nil, nil); err != nil {
		b.Fatal(err)
	}
	if out := controller.Reconcile(controller.Request{System: workspacefs.OS{}, Root: dir}); out.Err != nil || len(out.Problems) > 0 {
		b.Fatal(out.Err, out.Problems)
	}
	b.Run("in-sync", func(b *testing.B) {
		for b.Loop() {
			if out := controller.Reconcile(controller.Request{System: workspacefs.OS{}, Root: dir}); out.Plan.Pending() != 0 {
				b.Fatal("not in sync")
			}
		}
	})
}
