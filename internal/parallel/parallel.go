package parallel

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// Each runs f for 0..n-1 on a few goroutines and returns the error of the lowest
// index, so a failure reports the same path every time.
func Each(n int, f func(i int) error) error {
	errs := make([]error, n)
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(n, 2*runtime.GOMAXPROCS(0)) {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < n; i = int(next.Add(1) - 1) {
				errs[i] = f(i)
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
