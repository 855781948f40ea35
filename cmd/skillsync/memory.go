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

// largeLiveHeap is the live heap past which a fixed limit would leave the
// collector too little room and make it run without pause, taking half the CPU;
// past it the heap may grow by largeHeapGrowth percent of the live data instead.
const (
	largeLiveHeap   = 40 << 20
	largeHeapGrowth = 25
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

// followLiveHeap chooses after every collection between the fixed limit, for a
// live heap well under it, and a heap that grows by a quarter of its live data,
// for one near or past it (whole skill directories of a thousand skills hold
// about 50 MB).
func followLiveHeap() (stop func()) {
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	var stopped atomic.Bool
	var arm func()
	arm = func() {
		// The cleanup of an object nothing refers to runs after the next collection.
		runtime.AddCleanup(new(sentinel), func(struct{}) {
			if stopped.Load() {
				return
			}
			metrics.Read(sample)
			if sample[0].Value.Kind() == metrics.KindUint64 {
				limit, growth := paceFor(sample[0].Value.Uint64())
				debug.SetMemoryLimit(limit)
				debug.SetGCPercent(growth)
			}
			arm()
		}, struct{}{})
	}
	arm()
	return func() { stopped.Store(true) }
}

// paceFor is the soft memory limit and the collector's percentage (GOGC) for a
// live heap of live bytes.
func paceFor(live uint64) (limit int64, growth int) {
	if live > largeLiveHeap {
		return math.MaxInt64, largeHeapGrowth
	}
	return defaultMemoryLimit, 100
}

// sentinel is large enough not to share its memory block with other small
// objects, which would hold it, and its cleanup, until they are unreachable too.
type sentinel [64]byte
