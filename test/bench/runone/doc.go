// Command runone runs one command and reports how long it took and its peak
// RSS, for the benchmarks, which run what they time through it:
//
//	runone COMMAND [ARG...]   3>report
//
// The command's standard streams are runone's; its exit code is runone's;
// "<wall nanoseconds> <peak RSS in KiB>" goes to file descriptor 3.
//
// Why a process of its own: Go starts a child with vfork semantics, and Linux
// carries the parent's high-water RSS into the child's ru_maxrss at exec, so a
// child of a benchmark that holds hundreds of MB reports at least that much.
// runone holds a few MB, so the figure it reports is the command's own (or
// runone's few MB, for a command smaller than that).
//
// It imports nothing of this module.
package main
