//go:build !linux

package watch

// watchLimitHint says what to do when a directory cannot be watched: kqueue (macOS,
// the BSDs) holds an open file for every watched directory and every file in it,
// so the way out is more open files, or polling on purpose (pollFlag, when it
// names how to ask for it).
func watchLimitHint(pollFlag string) string {
	if pollFlag == "" {
		return "raise the open-file limit (ulimit -n) (see docs/platforms.md)"
	}
	return "raise the open-file limit (ulimit -n), or pass " + pollFlag + " (see docs/platforms.md)"
}
