// Package git reads skills from git repositories through the git binary, so
// that a user's credential helpers, SSH agent, proxies and insteadOf rules work
// as they do for git itself. It resolves a ref to a commit, fetches a commit
// into a bare repository of the user's cache, and lists the files of a folder of
// a commit from that cache, bounded and refusing what a skill directory cannot
// hold. The commit is git's own content address: what is read from the cache is
// what was fetched.
//
// It imports, of this module: desired/registry, internal/printable,
// internal/workspacefs.
package git
