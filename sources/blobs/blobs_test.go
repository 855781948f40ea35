package blobs

import (
	"os"
	"path/filepath"
	"testing"
)

func TestABlobIsReadOnlyWhileItHoldsItsDigest(t *testing.T) {
	s := Store{Dir: filepath.Join(t.TempDir(), "cache")}
	data := []byte("a skill's archive")
	d := Digest(data)
	if _, ok := s.Get(d, 1<<20); ok {
		t.Fatal("an empty store has the blob")
	}
	if err := s.Put(data); err != nil {
		t.Fatal(err)
	}
	if got, ok := s.Get(d, 1<<20); !ok || string(got) != string(data) {
		t.Errorf("Get after Put = %q, %v", got, ok)
	}
	if _, ok := s.Get(d, 4); ok {
		t.Error("a blob over the limit was read")
	}
	if err := os.WriteFile(s.Path(d), []byte("a skill's archivE"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, ok := s.Get(d, 1<<20); ok {
		t.Error("a blob whose bytes changed was read")
	}
	entries, _ := os.ReadDir(filepath.Dir(s.Path(d)))
	if len(entries) != 1 {
		t.Errorf("the store holds %d files, want the blob alone (no temporary file left)", len(entries))
	}
	for _, bad := range []string{"", "sha256:", "sha512:" + d[7:], "sha256:" + d[7:70], "sha256:../../etc/passwd"} {
		if ValidDigest(bad) {
			t.Errorf("ValidDigest(%q)", bad)
		}
		if _, ok := s.Get(bad, 1<<20); ok {
			t.Errorf("Get(%q) read something", bad)
		}
	}
}
