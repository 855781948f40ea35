//go:build race

package testkit

// raceDetector says the tests run with the race detector.
const raceDetector = true
