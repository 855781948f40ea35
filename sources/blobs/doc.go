// Package blobs keeps what sources fetch by the SHA-256 of its bytes, in a
// folder of the user's cache directory shared by every workspace and process
// of the user: a blob is checked against its digest at every read, and written
// whole under a temporary name, so that a reader never takes a torn or
// tampered copy for the real one.
//
// It imports, of this module: internal/workspacefs.
package blobs
