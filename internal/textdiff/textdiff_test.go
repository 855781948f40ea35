package textdiff

import "testing"

func TestUnified(t *testing.T) {
	old := []byte("a\nb\nc\nd\ne\nf\ng\nh\ni\nj\n")
	new := []byte("a\nb\nc\nd\nE\nf\ng\nh\ni\nj\nk\n")
	want := "--- a/x\n+++ b/x\n@@ -2,9 +2,10 @@\n b\n c\n d\n-e\n+E\n f\n g\n h\n i\n j\n+k\n"
	if got := Unified("x", old, new); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
	if got := Unified("x", old, old); got != "" {
		t.Errorf("equal texts gave a diff:\n%s", got)
	}
	created := Unified("x", nil, []byte("one\n"))
	if created != "--- /dev/null\n+++ b/x\n@@ -0,0 +1,1 @@\n+one\n" {
		t.Errorf("creation diff:\n%s", created)
	}
	if got := Unified("x", []byte("p\nq\nr\ns\nt\nu\nv\nw\n1\n"), []byte("P\nq\nr\ns\nt\nu\nv\nw\n2\n")); got !=
		"--- a/x\n+++ b/x\n@@ -1,4 +1,4 @@\n-p\n+P\n q\n r\n s\n@@ -6,4 +6,4 @@\n u\n v\n w\n-1\n+2\n" {
		t.Errorf("two hunks:\n%s", got)
	}
}
