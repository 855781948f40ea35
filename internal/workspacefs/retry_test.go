package workspacefs

import (
	"errors"
	"testing"
	"time"
)

// A rename an indexer's open handle refuses is tried again until it passes; any
// other error, or one that outlasts the backoff, is returned as it is.
func TestRetryTransient(t *testing.T) {
	shared, other := errors.New("sharing violation"), errors.New("access denied for good")
	transient := func(err error) bool { return errors.Is(err, shared) }
	backoff := []time.Duration{1, 2, 3}
	for _, c := range []struct {
		name      string
		failures  []error // what the tries return before the first success
		wantErr   error
		wantTries int
		wantSlept time.Duration
	}{
		{"at once", nil, nil, 1, 0},
		{"after two sharing violations", []error{shared, shared}, nil, 3, 3},
		{"another error is not retried", []error{other}, other, 1, 0},
		{"a sharing violation, then another error", []error{shared, other}, other, 2, 1},
		{"held longer than the backoff", []error{shared, shared, shared, shared, shared}, shared, 4, 6},
	} {
		t.Run(c.name, func(t *testing.T) {
			tries := 0
			var slept time.Duration
			err := retryTransient(func() error {
				tries++
				if tries <= len(c.failures) {
					return c.failures[tries-1]
				}
				return nil
			}, transient, backoff, func(d time.Duration) { slept += d })
			if !errors.Is(err, c.wantErr) || (c.wantErr == nil && err != nil) || tries != c.wantTries || slept != c.wantSlept {
				t.Errorf("err %v after %d tries and %v asleep, want %v after %d and %v", err, tries, slept, c.wantErr, c.wantTries, c.wantSlept)
			}
		})
	}
}
