// Package gitremote serves git repositories to tests the way a git host does:
// a bare repository behind git http-backend over smart HTTP (and as a file://
// path), counting the requests it answers, and commits and tags made in it with
// the git binary, apart from the machine's git configuration.
//
// It imports nothing of this module.
package gitremote
