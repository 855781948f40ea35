package testkit

import (
	"fmt"
	"testing"
	"time"

	"github.com/skillsync/skillsync/internal/testkit/benchkit"
)

// FreeAddr is an address on 127.0.0.1 whose port was free a moment ago, for a
// server under test to listen on.
func FreeAddr(t testing.TB) string {
	t.Helper()
	addr, err := benchkit.FreeAddr()
	if err != nil {
		t.Fatal(err)
	}
	return addr
}

// AwaitReady polls url every 10 ms until it answers 200 OK, and fails t if it
// has not within timeout; the limit bounds a condition, it measures nothing.
// The failure shows logs, the server's output so far, unless it is nil.
func AwaitReady(t testing.TB, url string, timeout time.Duration, logs fmt.Stringer) {
	t.Helper()
	if benchkit.Ready(url, timeout) {
		return
	}
	if logs != nil {
		t.Fatalf("%s never answered 200\n%s", url, logs)
	}
	t.Fatalf("%s never answered 200", url)
}
