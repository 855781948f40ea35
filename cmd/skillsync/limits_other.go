//go:build !unix

package main

// checkOpenFiles has nothing to check where there is no open-file limit to read.
func checkOpenFiles() error { return nil }
