// Package documents edits the documents of a YAML stream the ways a person's
// save does: one added, one removed, two swapped, one split in two by a stray
// "---". The property tests that compare a load through the registry's
// per-document cache, or a watcher's pass, with one from scratch make these
// edits to registry files. Only tests import it.
//
// It imports nothing of this module.
package documents
