package main

import "testing"

func TestUnifiedDiff(t *testing.T) {
	for _, c := range []struct {
		name     string
		old, new []byte
		want     string
	}{
		{"equal texts", []byte("a\n"), []byte("a\n"), ""},
		{"neighbouring changes share a hunk",
			[]byte("a\nb\nc\nd\ne\nf\ng\nh\ni\nj\n"), []byte("a\nb\nc\nd\nE\nf\ng\nh\ni\nj\nk\n"),
			"--- a/x\n+++ b/x\n@@ -2,9 +2,10 @@\n b\n c\n d\n-e\n+E\n f\n g\n h\n i\n j\n+k\n"},
		{"distant changes get a hunk each",
			[]byte("p\nq\nr\ns\nt\nu\nv\nw\n1\n"), []byte("P\nq\nr\ns\nt\nu\nv\nw\n2\n"),
			"--- a/x\n+++ b/x\n@@ -1,4 +1,4 @@\n-p\n+P\n q\n r\n s\n@@ -6,4 +6,4 @@\n u\n v\n w\n-1\n+2\n"},
		{"creation", nil, []byte("one\n"), "--- /dev/null\n+++ b/x\n@@ -0,0 +1 @@\n+one\n"},
		{"deletion", []byte("one\ntwo\n"), nil, "--- a/x\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-one\n-two\n"},
		{"no newline at the end", []byte("one\ntwo"), []byte("one\ntwo\n"),
			"--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n one\n-two\n\\ No newline at end of file\n+two\n"},
	} {
		if got := unifiedDiff("x", c.old, c.new); got != c.want {
			t.Errorf("%s:\ngot:\n%s\nwant:\n%s", c.name, got, c.want)
		}
	}
}
