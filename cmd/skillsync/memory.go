package main

import (
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync/atomic"
)

// pace is the soft limit the garbage collector keeps the memory under when
// GOMEMLIMIT does not set one, and how far the heap may grow past its live data
// between collections while the limit leaves it room (GOGC).
type pace struct {
	limit  int64
	growth int
}

// A command that runs once is a batch job: its live data is small next to what
// it allocates (a first no-op over 1 000 capabilities allocates about 43 MB and
// holds 5 MB at most; at GOGC=100 it collected 16 times), so it lets the heap
// grow to five times its live data, under a lower limit, which a pass over 10 000
// capabilities (about 35 MB of live data) reaches as it did the higher one. A
// command that keeps running (reconcile --watch, serve) keeps its heap near its
// live data: Go's default GOGC, under a limit that leaves a watcher of 10 000
// capabilities room. Near the limit the collector runs more often, which costs
// some CPU only in workspaces that large (docs/decisions.md, docs/performance.md).
var (
	oneShot = pace{limit: 40 << 20, growth: 400}
	steady  = pace{limit: 45 << 20, growth: 100}
)

// The collector is squeezed when the limit leaves the heap less than a quarter of
// its live data to grow into before the next collection: it then runs almost
// without pause, taking half the CPU. Squeezed, the limit is lifted and the heap
// may grow by largeHeapGrowth percent of the live data; the limit comes back once
// the live heap is under restoreBelow, where it leaves room again.
const (
	largeHeapGrowth = 25
	restoreBelow    = 24 << 20
)

// roomy is the pace while the limit leaves room: oneShot, or steady once
// keepRunning says so.
var roomy atomic.Pointer[pace]

// limited and paced say limitMemory set the limit and the pace, which
// GOMEMLIMIT and GOGC in the environment take over.
var limited, paced atomic.Bool

// limitMemory sets the soft memory limit of a one-shot command unless GOMEMLIMIT
// does, and, unless GOGC sets the collector's pace too, its pace, and has the
// collector follow the live heap; stop ends that. It turns the heap profile off.
func limitMemory() (stop func()) {
	// Nothing here reads a heap profile, but gRPC links runtime/pprof, so the
	// runtime would record the stack of an allocation every 512 KiB, in a table
	// of 1.4 MB (docs/performance.md).
	runtime.MemProfileRate = 0
	limited.Store(false)
	paced.Store(false)
	roomy.Store(&oneShot)
	if _, set := os.LookupEnv("GOMEMLIMIT"); set {
		return func() {}
	}
	limited.Store(true)
	debug.SetMemoryLimit(oneShot.limit)
	if _, set := os.LookupEnv("GOGC"); set {
		return func() {}
	}
	paced.Store(true)
	debug.SetGCPercent(oneShot.growth)
	return followLiveHeap()
}

// keepRunning gives a command that keeps running the steady pace, from its start.
func keepRunning() {
	roomy.Store(&steady)
	if limited.Load() {
		debug.SetMemoryLimit(steady.limit)
	}
	if paced.Load() {
		debug.SetGCPercent(steady.growth)
	}
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
				limit, growth, lifted = paceFor(sample[0].Value.Uint64(), sample[1].Value.Uint64(), lifted, *roomy.Load())
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
// that lifts the limit; lifted says it was lifted before, and room is the pace
// while the limit leaves room.
func paceFor(live, goal uint64, lifted bool, room pace) (limit int64, growth int, lifts bool) {
	squeezed := goal < live+live/4
	if lifted && live >= restoreBelow || !lifted && squeezed {
		return math.MaxInt64, largeHeapGrowth, true
	}
	return room.limit, room.growth, false
}

// sentinel is large enough not to share its memory block with other small
// objects, which would hold it, and its cleanup, until they are unreachable too.
type sentinel [64]byte
