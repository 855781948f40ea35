package watch

import (
	"context"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
)

// worker runs the queue with a run function and counts the runs.
func worker(ctx context.Context, q *queue, run func()) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-q.Ready():
			run()
		}
	}
}

func TestQueueFoldsABurstIntoOneRun(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		q := newQueue(100*time.Millisecond, time.Second)
		var runs atomic.Int32
		go q.Debounce(ctx)
		go worker(ctx, q, func() { runs.Add(1) })
		for range 10000 {
			q.Add()
		}
		time.Sleep(99 * time.Millisecond)
		synctest.Wait()
		if n := runs.Load(); n != 0 {
			t.Fatalf("ran %d times inside the quiet period", n)
		}
		time.Sleep(time.Second)
		synctest.Wait()
		if n := runs.Load(); n != 1 {
			t.Errorf("10 000 triggers gave %d runs, want 1", n)
		}
	})
}

func TestQueueMaxWaitBoundsAStreamOfTriggers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		q := newQueue(100*time.Millisecond, time.Second)
		var runs atomic.Int32
		go q.Debounce(ctx)
		go worker(ctx, q, func() { runs.Add(1) })
		// A trigger every 50 ms never leaves a quiet period; the maximum wait fires.
		for range 30 {
			q.Add()
			time.Sleep(50 * time.Millisecond)
		}
		synctest.Wait()
		if n := runs.Load(); n != 1 {
			t.Errorf("1.5 s of triggers every 50 ms gave %d runs, want 1 (after the 1 s maximum wait)", n)
		}
	})
}

func TestQueueTriggersDuringARunGiveExactlyOneMore(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		q := newQueue(100*time.Millisecond, time.Second)
		var runs atomic.Int32
		release := make(chan struct{})
		go q.Debounce(ctx)
		go worker(ctx, q, func() {
			if runs.Add(1) == 1 {
				<-release // the first run takes a while
			}
		})
		q.Add()
		time.Sleep(200 * time.Millisecond)
		synctest.Wait()
		if runs.Load() != 1 {
			t.Fatal("first run did not start")
		}
		for range 5 { // several bursts, each settling, while the first run goes on
			for range 100 {
				q.Add()
			}
			time.Sleep(200 * time.Millisecond)
		}
		close(release)
		time.Sleep(5 * time.Second)
		synctest.Wait()
		if n := runs.Load(); n != 2 {
			t.Errorf("triggers during a run gave %d runs in all, want 2", n)
		}
	})
}
