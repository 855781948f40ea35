// Command reconcile benchmarks skillsync's one-shot commands on generated
// workspaces of N capabilities, side by side with the raw file-I/O floor (cp -r of
// the same tree, cat of every file through find) and with the peers rulesync and
// ruler, in one run; then workspaces of whole skill directories (10 files each,
// declared by spec.skillDirs) against cp -r of their skill tree into the three
// targets and the read floor of the generated tree. It prints the tables and writes
// them to test/bench/results/latest.md.
//
//	go run ./test/bench/reconcile [-sizes 100,1000,10000] [-skilldirs 1000] [-runs 5] [-peers=false]
//
// With -scaling it times only the cold run and the write floor, the sizes in turn
// run by run, and writes test/bench/results/scaling.md.
//
// Every timed command runs through test/bench/runone, which it builds.
//
// It imports, of this module: controller/state, internal/testkit/benchkit,
// internal/testkit/ociregistry, test/bench/workspacegen.
package main
