// Package banner is the ownership mark skillsync puts inside the front matter of every
// file it generates. Both the renderers (which stamp it) and the scanner (which reads
// it) depend on this one definition, so they can never disagree about the format.
//
// It imports nothing of this module.
package banner
