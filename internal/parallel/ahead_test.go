package parallel

import (
	"runtime"
	"sync/atomic"
	"testing"
)

// Every result comes in order, once, and no more than depth are computed ahead
// of the ones taken, with one worker or several.
func TestAheadGivesEveryResultInOrderAndHoldsAtMostDepth(t *testing.T) {
	for _, c := range []struct{ n, depth, workers int64 }{{50, 2, 1}, {200, 3, 4}} {
		var computed, taken atomic.Int64
		var overDepth atomic.Bool
		a := StartAhead(int(c.n), int(c.depth), int(c.workers), func(i int) int {
			// taken counts a result only once Take returned it, so the one
			// taken last may still be counted as ahead.
			if computed.Add(1)-taken.Load() > c.depth+1 {
				overDepth.Store(true)
			}
			runtime.Gosched()
			return i*i + 7
		})
		for i := range int(c.n) {
			if v := a.Take(i); v != i*i+7 {
				t.Fatalf("%d workers: Take(%d) = %d, want %d", c.workers, i, v, i*i+7)
			}
			taken.Add(1)
		}
		a.Close()
		if overDepth.Load() {
			t.Fatalf("%d workers: more than %d results were computed ahead of the ones taken", c.workers, c.depth)
		}
		if got := computed.Load(); got != c.n {
			t.Fatalf("%d workers: f ran %d times, want %d", c.workers, got, c.n)
		}
	}
}

// Untaken, exactly depth results are computed, however many workers wait.
func TestAheadComputesExactlyDepthBeforeAnyTake(t *testing.T) {
	const n, depth = 10, 3
	var computed atomic.Int64
	started := make(chan struct{}, n)
	a := StartAhead(n, depth, 4, func(i int) int {
		computed.Add(1)
		started <- struct{}{}
		return i
	})
	defer a.Close()
	for range depth {
		<-started
	}
	for range 10000 {
		runtime.Gosched()
	}
	if c := computed.Load(); c != depth {
		t.Fatalf("f ran %d times with nothing taken, want %d", c, depth)
	}
}

// With more workers than room, each must take room before an index: one that
// held an index without room would leave Take waiting for ever (the test then
// hangs until go test's timeout).
func TestAheadWithMoreWorkersThanRoomNeverStalls(t *testing.T) {
	for range 20000 {
		a := StartAhead(4, 1, 3, func(i int) int { return i })
		for i := range 4 {
			if v := a.Take(i); v != i {
				t.Fatalf("Take(%d) = %d", i, v)
			}
		}
		a.Close()
	}
}

// Close returns only once the f under way has returned, and nothing more
// begins after it, though room was free for f(1) all along.
func TestAheadCloseWaitsForWhatIsUnderWay(t *testing.T) {
	begun, release := make(chan struct{}), make(chan struct{})
	var finished atomic.Bool
	var computed atomic.Int64
	a := StartAhead(100, 2, 1, func(i int) int {
		computed.Add(1)
		if i == 0 {
			close(begun)
			<-release
			finished.Store(true)
		}
		return i
	})
	<-begun
	closed := make(chan struct{})
	go func() {
		a.Close()
		close(closed)
	}()
	for range 10000 {
		runtime.Gosched()
	}
	select {
	case <-closed:
		t.Fatal("Close returned while f(0) was still running")
	default:
	}
	close(release)
	<-closed
	if !finished.Load() {
		t.Fatal("Close returned before f(0) did")
	}
	if c := computed.Load(); c != 1 {
		t.Fatalf("f ran %d times, want once: it went on after Close", c)
	}
	if v := a.Take(0); v != 0 {
		t.Fatalf("Take(0) = %d", v)
	}
}
