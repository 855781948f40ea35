//go:build windows

package main

import (
	"io/fs"
	"testing"
)

// inode is 0: FileInfo carries no file index on Windows, so the tree compares
// contents and times alone.
func inode(fs.FileInfo) uint64 { return 0 }

func mkfifo(t *testing.T, _ string) {
	t.Skip("Windows has no FIFOs in the filesystem")
}
