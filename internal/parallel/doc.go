// Package parallel runs independent file operations a few at a time: on the small
// machines skillsync runs on they mostly wait on system calls, so a few goroutines
// more than cores keep the cores busy. They live until the work is done rather than
// one starting per item, as errgroup's do: a scan of 30 000 skill directories takes
// a quarter more user CPU that way (docs/decisions.md).
//
// It imports nothing of this module.
package parallel
