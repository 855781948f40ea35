package main

import (
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

// keepPace restores the collector's limit and pace when the test ends.
func keepPace(t *testing.T) {
	limit, growth, sampled := debug.SetMemoryLimit(-1), debug.SetGCPercent(-1), runtime.MemProfileRate
	debug.SetGCPercent(growth)
	t.Cleanup(func() {
		debug.SetMemoryLimit(limit)
		debug.SetGCPercent(growth)
		runtime.MemProfileRate = sampled
	})
}

// Nothing reads a heap profile, so a command has the runtime record none,
// whatever the environment sets for the collector.
func TestACommandRecordsNoHeapProfile(t *testing.T) {
	keepPace(t)
	runtime.MemProfileRate = 512 << 10
	t.Setenv("GOMEMLIMIT", "1GiB")
	limitMemory()()
	if runtime.MemProfileRate != 0 {
		t.Errorf("the runtime records an allocation every %d bytes for a heap profile", runtime.MemProfileRate)
	}
}

func TestMemoryLimitIsSetUnlessGOMEMLIMITIs(t *testing.T) {
	keepPace(t)

	debug.SetMemoryLimit(math.MaxInt64)
	t.Setenv("GOMEMLIMIT", "1GiB")
	limitMemory()()
	if got := debug.SetMemoryLimit(-1); got != math.MaxInt64 {
		t.Errorf("with GOMEMLIMIT set, the limit became %d; the environment's must stand", got)
	}

	t.Setenv("GOMEMLIMIT", "")
	os.Unsetenv("GOMEMLIMIT")
	stop := limitMemory()
	defer stop()
	if got := debug.SetMemoryLimit(-1); got != oneShot.limit {
		t.Errorf("without GOMEMLIMIT, the limit is %d, want %d", got, oneShot.limit)
	}
}

// A live heap past the fixed limit would make the collector run without pause:
// the limit gives way to a pace that follows the live heap, and comes back when
// the live heap shrinks.
func TestTheLimitGivesWayToALargeLiveHeap(t *testing.T) {
	pacedAsInMain(t)

	live := make([][]byte, 0, 64)
	for range 64 {
		live = append(live, make([]byte, 1<<20))
	}
	if limit, growth := waitForPace(t, math.MaxInt64); limit != math.MaxInt64 || growth != largeHeapGrowth {
		t.Errorf("with 64 MiB live, the limit is %d and GOGC %d; want no limit and %d", limit, growth, largeHeapGrowth)
	}
	runtime.KeepAlive(live)
	live = nil
	if limit, growth := waitForPace(t, oneShot.limit); limit != oneShot.limit || growth != oneShot.growth {
		t.Errorf("with the heap freed, the limit is %d and GOGC %d; want %d and %d", limit, growth, oneShot.limit, oneShot.growth)
	}
}

// A one-shot command lets the heap grow to five times its live data under its
// limit; one that keeps running keeps GOGC's default under a higher one, from its
// start and after every collection. GOGC in the environment sets the pace of
// both, and GOMEMLIMIT the limit.
func TestACommandThatKeepsRunningKeepsItsHeapNearItsLiveData(t *testing.T) {
	pacedAsInMain(t)
	if limit, growth := debug.SetMemoryLimit(-1), gcPercent(); limit != oneShot.limit || growth != oneShot.growth {
		t.Errorf("a one-shot command starts with the limit %d and GOGC %d, want %d and %d", limit, growth, oneShot.limit, oneShot.growth)
	}
	keepRunning()
	if limit, growth := debug.SetMemoryLimit(-1), gcPercent(); limit != steady.limit || growth != steady.growth {
		t.Errorf("a command that keeps running starts with the limit %d and GOGC %d, want %d and %d", limit, growth, steady.limit, steady.growth)
	}
	if limit, growth := waitForPace(t, steady.limit); limit != steady.limit || growth != steady.growth {
		t.Errorf("after a collection, a command that keeps running has the limit %d and GOGC %d; want %d and %d", limit, growth, steady.limit, steady.growth)
	}

	t.Setenv("GOGC", "150")
	debug.SetGCPercent(150)
	stopSet := limitMemory()
	defer stopSet()
	keepRunning()
	if limit, growth := debug.SetMemoryLimit(-1), gcPercent(); limit != steady.limit || growth != 150 {
		t.Errorf("with GOGC=150 in the environment, the limit is %d and GOGC %d; want %d and 150", limit, growth, steady.limit)
	}

	t.Setenv("GOMEMLIMIT", "1GiB")
	debug.SetMemoryLimit(1 << 30)
	stopLimited := limitMemory()
	defer stopLimited()
	keepRunning()
	if limit := debug.SetMemoryLimit(-1); limit != 1<<30 {
		t.Errorf("with GOMEMLIMIT=1GiB in the environment, the limit is %d", limit)
	}
}

// pacedAsInMain sets the limit and the pace as main does in an environment
// without GOMEMLIMIT and GOGC, until the test ends.
func pacedAsInMain(t *testing.T) {
	keepPace(t)
	for _, name := range []string{"GOMEMLIMIT", "GOGC"} {
		t.Setenv(name, "")
		os.Unsetenv(name)
	}
	t.Cleanup(limitMemory())
}

func gcPercent() int {
	growth := debug.SetGCPercent(-1)
	debug.SetGCPercent(growth)
	return growth
}

// waitForPace collects until the soft limit is want, or for a few seconds, and
// returns the limit and GOGC then in force.
func waitForPace(t *testing.T, want int64) (int64, int) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); {
		runtime.GC()
		time.Sleep(10 * time.Millisecond) // the pace is set by a cleanup, after the collection
		if debug.SetMemoryLimit(-1) == want {
			break
		}
	}
	growth := debug.SetGCPercent(-1)
	debug.SetGCPercent(growth)
	return debug.SetMemoryLimit(-1), growth
}

func TestPaceFor(t *testing.T) {
	const mib = 1 << 20
	for _, tc := range []struct {
		live, goal uint64
		lifted     bool
		limit      int64
		growth     int
		lifts      bool
	}{
		{10 * mib, 20 * mib, false, 30 * mib, 300, false},
		{30 * mib, 40 * mib, false, 30 * mib, 300, false},
		{36 * mib, 40 * mib, false, math.MaxInt64, largeHeapGrowth, true}, // squeezed
		{60 * mib, 44 * mib, false, math.MaxInt64, largeHeapGrowth, true},
		{30 * mib, 37 * mib, true, math.MaxInt64, largeHeapGrowth, true}, // lifted, still large
		{restoreBelow - 1, 30 * mib, true, 30 * mib, 300, false},
	} {
		limit, growth, lifts := paceFor(tc.live, tc.goal, tc.lifted, pace{limit: 30 * mib, growth: 300})
		if limit != tc.limit || growth != tc.growth || lifts != tc.lifts {
			t.Errorf("paceFor(%d MiB, %d MiB, %v) = %d, %d, %v; want %d, %d, %v", tc.live/mib, tc.goal/mib, tc.lifted, limit, growth, lifts, tc.limit, tc.growth, tc.lifts)
		}
	}
}
