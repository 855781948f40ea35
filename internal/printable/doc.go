// Package printable keeps text that came from files, registry fields or paths from
// acting on a terminal: control characters, line and paragraph separators, bidi
// overrides and bytes that are not UTF-8 are written as escapes instead.
//
// It imports nothing of this module.
package printable
