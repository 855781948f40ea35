package testkit

import "strings"

// withoutExitSleep returns the race detector's options, as GORACE holds them,
// with atexit_sleep_ms=0 added unless they set it: a race-built program
// otherwise sleeps a second before it exits, which in a test that starts
// hundreds of them is most of its time.
func withoutExitSleep(gorace string) string {
	if strings.Contains(gorace, "atexit_sleep_ms=") {
		return gorace
	}
	return strings.TrimSpace("atexit_sleep_ms=0 " + gorace)
}
