package controller

// watchLimitHint says what to do when a directory cannot be watched: inotify
// watches count against a per-user limit.
const watchLimitHint = "raise fs.inotify.max_user_watches (see docs/operations.md)"
