// Package index is the one-shot pass's index: what a pass that found nothing to
// do found, with the stamp of every path it read, written so that the next pass
// answers from it when every stamp is as it was. It knows the file format and
// the stamps, not the pass: the pass says what to stamp and what it found.
//
// It imports, of this module: controller/plan, desired, desired/registry,
// internal/parallel, internal/workspacefs.
package index
