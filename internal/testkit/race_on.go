//go:build race

package testkit

import "os"

// raceDetector says the tests run with the race detector.
const raceDetector = true

// Every race-built program a test starts inherits GORACE, so none of them
// sleeps before it exits (see withoutExitSleep).
func init() {
	os.Setenv("GORACE", withoutExitSleep(os.Getenv("GORACE")))
}
