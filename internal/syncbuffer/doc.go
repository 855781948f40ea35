// Package syncbuffer is a byte buffer that a child process's output can be copied
// into while another goroutine reads it, as tests and benchmarks of the watcher do.
//
// It imports nothing of this module.
package syncbuffer
