package parallel

import (
	"sync"
	"sync/atomic"
)

// Ahead computes f(0), f(1), … on workers goroutines of its own, at most depth
// results ahead of the one taken last: work that waits on the disk or on a core
// overlaps the work that consumes it, while no more than depth results are held
// at once.
type Ahead[T any] struct {
	results []chan T
	room    chan struct{}
	stop    chan struct{}
	workers sync.WaitGroup
}

// StartAhead starts computing f(i) for 0..n-1; depth and workers are at least 1.
func StartAhead[T any](n, depth, workers int, f func(i int) T) *Ahead[T] {
	a := &Ahead[T]{results: make([]chan T, n), room: make(chan struct{}, max(depth, 1)), stop: make(chan struct{})}
	for i := range a.results {
		a.results[i] = make(chan T, 1)
	}
	var next atomic.Int64
	for range min(max(workers, 1), n) {
		a.workers.Go(func() {
			for {
				// After Close, a worker coming round for its next index stops even
				// with room free, which select alone would take half the time; one
				// already past this check may still begin one more f.
				select {
				case <-a.stop:
					return
				default:
				}
				// Room is taken before an index, so the results that hold room
				// are always the lowest ones not yet taken: Take never waits on
				// one that waits for room.
				select {
				case a.room <- struct{}{}:
				case <-a.stop:
					return
				}
				i := int(next.Add(1) - 1)
				if i >= n {
					<-a.room
					return
				}
				a.results[i] <- f(i)
			}
		})
	}
	return a
}

// Take waits for f(i); results are taken in order, each once, and none after
// Close.
func (a *Ahead[T]) Take(i int) T {
	v := <-a.results[i]
	<-a.room
	return v
}

// Close stops computing results not yet begun, but for one a worker may have
// been about to begin, and waits for those under way: nothing f does outlasts
// the caller's use of it (a scan holding a directory open would keep it from
// being removed on Windows).
func (a *Ahead[T]) Close() {
	close(a.stop)
	a.workers.Wait()
}
