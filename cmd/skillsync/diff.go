package main

import udiff "github.com/aymanbagabas/go-udiff"

// unifiedDiff is what `--diff` prints for one file: a unified diff labelled a/ and
// b/ as git labels them, with /dev/null for a side that does not exist (nil), and
// empty when the texts are equal. go-udiff is gopls' diff: linear in the size of
// the files for the few changed lines a regenerated skill has (docs/decisions.md).
func unifiedDiff(path string, old, new []byte) string {
	from, to := "a/"+path, "b/"+path
	if old == nil {
		from = "/dev/null"
	}
	if new == nil {
		to = "/dev/null"
	}
	return udiff.Unified(from, to, string(old), string(new))
}
