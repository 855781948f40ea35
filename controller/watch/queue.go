package watch

import (
	"context"
	"time"
)

// queue is the work queue of the one workspace key. Every trigger marks it dirty;
// after a quiet period without triggers (but no later than maxWait after the first)
// it offers one run. Triggers during a run leave exactly one more run pending.
type queue struct {
	quiet, maxWait time.Duration
	triggers       chan struct{} // capacity 1: Add never blocks, bursts fold
	ready          chan struct{} // capacity 1: at most one run pending
}

// newQueue returns a queue with the given quiet period and maximum wait.
func newQueue(quiet, maxWait time.Duration) *queue {
	return &queue{quiet: quiet, maxWait: maxWait, triggers: make(chan struct{}, 1), ready: make(chan struct{}, 1)}
}

// Add marks the workspace dirty.
func (q *queue) Add() {
	select {
	case q.triggers <- struct{}{}:
	default:
	}
}

// Ready delivers one value per run to make.
func (q *queue) Ready() <-chan struct{} { return q.ready }

// Debounce turns triggers into runs until ctx ends.
func (q *queue) Debounce(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-q.triggers:
		}
		deadline := time.Now().Add(q.maxWait)
		quiet := time.NewTimer(q.quiet)
	settle:
		for {
			select {
			case <-ctx.Done():
				quiet.Stop()
				return
			case <-q.triggers:
				quiet.Reset(min(q.quiet, time.Until(deadline)))
			case <-quiet.C:
				break settle
			}
		}
		select {
		case q.ready <- struct{}{}:
		default: // a run is already pending; it will see this change too
		}
	}
}
