// Command watchlatency measures the watcher: how long after a registry save every
// affected skill file is on disk (p50 and p99 over many saves), the CPU an idle
// watcher uses, and its memory. It prints a table; docs/performance.md records it.
//
//	go run ./test/bench/watchlatency [-saves 15] [-idle 60s] [-sizes 100,1000,10000]
//
// It imports, of this module: internal/syncbuffer, internal/testkit/benchkit.
package main
