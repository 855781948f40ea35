package testkit

import (
	"errors"
	"testing"

	"github.com/skillsync/skillsync/internal/workspacefs"
)

// Swaps says the tests' workspaces are on a system whose Dir swaps two files
// in one step, which closes the moment between an update's check and its
// rename; the portable Dir cannot.
func Swaps(t *testing.T) bool {
	t.Helper()
	root := t.TempDir()
	WriteFile(t, root, "a", []byte("a"))
	WriteFile(t, root, "b", []byte("b"))
	r, err := workspacefs.OS{}.Open(root)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	d, err := r.OpenDir(".")
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	err = d.Exchange("a", "b")
	if err != nil && !errors.Is(err, workspacefs.ErrExchangeUnsupported) {
		t.Fatal(err)
	}
	return err == nil
}
