// Command watchlatency measures the watcher: how long after a registry save every
// affected skill file is on disk (p50 and p99 over many saves), the CPU an idle
// watcher uses, and its memory, with 1, 50 and 1 000 capabilities to a registry
// file by default; and, in a workspace of whole skill directories, how long a saved
// supporting file takes to reach every target against a saved SKILL.md. It prints
// tables; docs/performance.md records them.
//
//	go run ./test/bench/watchlatency [-saves 15] [-idle 60s] [-sizes 100,1000,10000] [-per-file 1,50,1000] [-skilldirs 1000]
//
// It imports, of this module: internal/syncbuffer, internal/testkit/benchkit,
// test/bench/workspacegen.
package main
