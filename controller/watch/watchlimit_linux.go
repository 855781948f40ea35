package watch

// watchLimitHint says what to do when a directory cannot be watched: inotify
// watches count against a per-user limit, and raising it is the way out; polling
// is what the watcher does meanwhile.
func watchLimitHint(string) string {
	return "raise fs.inotify.max_user_watches (see docs/operations.md)"
}
