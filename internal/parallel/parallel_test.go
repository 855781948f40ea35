package parallel

import (
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
)

func TestEachRunsEveryIndexOnceAndReportsTheLowestError(t *testing.T) {
	const n = 1000
	var calls [n]atomic.Int32
	err := Each(n, func(i int) error {
		calls[i].Add(1)
		if i%300 == 299 {
			return fmt.Errorf("fail %d", i)
		}
		return nil
	})
	for i := range calls {
		if c := calls[i].Load(); c != 1 {
			t.Fatalf("index %d ran %d times", i, c)
		}
	}
	if err == nil || err.Error() != "fail 299" {
		t.Fatalf("err = %v, want the lowest index's", err)
	}
	if err := Each(0, func(int) error { return errors.New("never") }); err != nil {
		t.Fatalf("Each(0) = %v", err)
	}
}
