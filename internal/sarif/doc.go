// Package sarif writes a SARIF 2.1.0 log of one run: the tool and its rules,
// and results located at a line of a file under the repository root, sorted so
// that the same findings give the same bytes. GitHub code scanning and other
// consoles read it.
//
// It imports nothing of this module.
package sarif
