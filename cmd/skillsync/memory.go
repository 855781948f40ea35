package main

import (
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync/atomic"
)

// defaultMemoryLimit is the soft limit the garbage collector keeps the memory
// under when GOMEMLIMIT does not set one. A pass over 10 000 capabilities holds
// about 35 MB of live data; without a limit the collector lets garbage grow the
// heap to twice that. Near the limit it collects more often instead, which costs
// some CPU only in workspaces that large (docs/performance.md).
const defaultMemoryLimit = 45 << 20

// The collector is squeezed when the limit leaves the heap less than a quarter of
// its live data to grow into before the next collection: it then runs almost
// without pause, taking half the CPU. Squeezed, the limit is lifted and the heap
// may grow by largeHeapGrowth percent of the live data; the limit comes back once
// the live heap is under restoreBelow, where it leaves room again.
const (
	largeHeapGrowth = 25
	restoreBelow    = 24 << 20
)

// limitMemory sets the soft memory limit unless GOMEMLIMIT does, and, unless GOGC
// sets the collector's pace too, has it follow the live heap; stop ends that.
func limitMemory() (stop func()) {
	if _, set := os.LookupEnv("GOMEMLIMIT"); set {
		return func() {}
	}
	debug.SetMemoryLimit(defaultMemoryLimit)
	if _, set := os.LookupEnv("GOGC"); set {
		return func() {}
	}
	return followLiveHeap()
}

// followLiveHeap chooses after every collection between the fixed limit and a
// heap that grows by a quarter of its live data, when the limit squeezes the
// collector (whole skill directories of a thousand skills hold about 50 MB).
func followLiveHeap() (stop func()) {
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}, {Name: "/gc/heap/goal:bytes"}}
	var stopped atomic.Bool
	lifted := false
	var arm func()
	arm = func() {
		// The cleanup of an object nothing refers to runs after the next collection.
		runtime.AddCleanup(new(sentinel), func(struct{}) {
			if stopped.Load() {
				return
			}
			metrics.Read(sample)
			if sample[0].Value.Kind() == metrics.KindUint64 && sample[1].Value.Kind() == metrics.KindUint64 {
				var limit int64
				var growth int
				limit, growth, lifted = paceFor(sample[0].Value.Uint64(), sample[1].Value.Uint64(), lifted)
				debug.SetMemoryLimit(limit)
				debug.SetGCPercent(growth)
			}
			arm()
		}, struct{}{})
	}
	arm()
	return func() { stopped.Store(true) }
}

// paceFor is the soft memory limit and the collector's percentage (GOGC) after a
// collection that left live bytes, with the heap let grow to goal, and whether
// that lifts the limit; lifted says it was lifted before.
func paceFor(live, goal uint64, lifted bool) (limit int64, growth int, lifts bool) {
	squeezed := goal < live+live/4
	if lifted && live >= restoreBelow || !lifted && squeezed {
		return math.MaxInt64, largeHeapGrowth, true
	}
	return defaultMemoryLimit, 100, false
}

// sentinel is large enough not to share its memory block with other small
// objects, which would hold it, and its cleanup, until they are unreachable too.
type sentinel [64]byte
