// Package hiddentext finds what a person reading a text would not see but a
// model reading it would: Unicode tag characters, bidirectional overrides and
// isolates, zero-width characters outside emoji sequences, control bytes, and
// other code points that render as nothing. A hidden instruction in a skill is
// a prompt injection with the user's permissions, so every text that reaches
// a model is scanned before it is written.
//
// It imports nothing of this module.
package hiddentext
