package statedir

import (
	"bytes"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/skillsync/skillsync/banner"
	"github.com/skillsync/skillsync/desired/registry"
	"github.com/skillsync/skillsync/internal/workspacefs"
)

func exampleWorkspace(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS("../fixtures/example")); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestAcceptRefusesAFileThatIsNotAnInput(t *testing.T) {
	root := exampleWorkspace(t)
	_, err := Accept(workspacefs.OS{}, root, []string{"README.md"})
	var ps registry.Problems
	if !errors.As(err, &ps) || ps[0].Pos.File != "README.md" {
		t.Fatalf("Accept(workspacefs.OS{}, README.md) = %v, want a problem naming it", err)
	}
}

// The record holds what was applied. A registry file saved again between loading
// and recording is not that, so the record is left as it was, for the next pass.
func TestARecordIsNotMadeFromASourceSavedAgainSinceItWasLoaded(t *testing.T) {
	root := exampleWorkspace(t)
	reg, err := registry.Load(root)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Record(workspacefs.OS{}, reg); err != nil {
		t.Fatal(err)
	}
	before, err := os.ReadFile(filepath.Join(root, AppliedFile))
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(root, "registry/intents.yaml")
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, append(data, "# saved again\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	if sum, err := Record(workspacefs.OS{}, reg); err != nil || sum != [32]byte{} {
		t.Fatalf("Record = %x, %v, want nothing recorded and no error", sum, err)
	}
	after, err := os.ReadFile(filepath.Join(root, AppliedFile))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(before, after) {
		t.Error("the record changed, though a source no longer holds what was loaded")
	}
	if _, err := registry.ReadSource(reg, "registry/intents.yaml"); !errors.Is(err, registry.ErrSourceChanged) {
		t.Errorf("ReadSource of the saved file = %v, want ErrSourceChanged", err)
	}
	if data, err := registry.ReadSource(reg, registry.ConfigName); err != nil || len(data) == 0 {
		t.Errorf("ReadSource of the untouched config = %q, %v", data, err)
	}
}

// The record is written a file at a time; it must read back as the files given,
// whatever their names and contents.
func TestTheRecordReadsBackAsWritten(t *testing.T) {
	r, err := workspacefs.OS{}.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	files := map[string][]byte{
		"skillsync.yaml":           []byte("apiVersion: skillsync/v1\n"),
		"registry/a<b>&\"c\".yaml": {0, 1, 2, 0xff, '\n'},
		"registry/empty.yaml":      {},
	}
	names := slices.Sorted(maps.Keys(files))
	if _, err := writeApplied(r, names, func(name string) ([]byte, error) { return files[name], nil }); err != nil {
		t.Fatal(err)
	}
	back, err := ReadApplied(r)
	if err != nil {
		t.Fatal(err)
	}
	if !maps.EqualFunc(files, back, bytes.Equal) {
		t.Errorf("record read back as %q, want %q", back, files)
	}
	failing := errors.New("read failed")
	if _, err := writeApplied(r, names, func(string) ([]byte, error) { return nil, failing }); !errors.Is(err, failing) {
		t.Errorf("writeApplied with a failing read = %v, want it", err)
	}
	if again, err := ReadApplied(r); err != nil || !maps.EqualFunc(files, again, bytes.Equal) {
		t.Errorf("a failed write changed the record: %q, %v", again, err)
	}
	entries, err := os.ReadDir(filepath.Join(r.Root(), Dir))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if banner.IsTempName(e.Name()) {
			t.Errorf("a failed write left %s in .skillsync/", e.Name())
		}
	}
}
