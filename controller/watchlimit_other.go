//go:build !linux

package controller

// watchLimitHint says what to do when a directory cannot be watched: kqueue (macOS,
// the BSDs) holds an open file for every watched directory and every file in it.
const watchLimitHint = "raise the open-file limit (ulimit -n), or pass --poll (see docs/platforms.md)"
