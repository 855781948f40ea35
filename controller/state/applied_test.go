package state

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/skillsync/skillsync/desired/registry"
	"github.com/skillsync/skillsync/internal/banner"
	"github.com/skillsync/skillsync/internal/testkit"
	"github.com/skillsync/skillsync/internal/workspacefs"
)

func loaded(t *testing.T, root string) *registry.Registry {
	t.Helper()
	reg, err := registry.Load(workspacefs.OS{}, root)
	if err != nil {
		t.Fatal(err)
	}
	return reg
}

func TestAcceptRefusesAFileThatIsNotAnInput(t *testing.T) {
	root := testkit.ExampleWorkspace(t)
	_, err := Accept(workspacefs.OS{}, root, registry.ConfigName, []string{"README.md"})
	var ps registry.Problems
	if !errors.As(err, &ps) || ps[0].Pos.File != "README.md" {
		t.Fatalf("Accept(workspacefs.OS{}, README.md) = %v, want a problem naming it", err)
	}
}

// The record holds what was applied. A registry file saved again between loading
// and recording, whose loaded bytes the record does not keep yet, can no longer
// be read as applied, so the record is left as it was, for the next pass.
func TestARecordIsNotMadeFromASourceSavedAgainSinceItWasLoaded(t *testing.T) {
	root := testkit.ExampleWorkspace(t)
	if _, err := Record(workspacefs.OS{}, loaded(t, root)); err != nil {
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
	if err := os.WriteFile(file, append(data, "# applied\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	reg := loaded(t, root)
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

// The record must read back as the files given, whatever their names and
// contents; a write that fails leaves the record as it was, and no temp file.
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
		"registry/same.yaml":       []byte("apiVersion: skillsync/v1\n"),
	}
	record := func(files map[string][]byte) map[string]Recorded {
		out := map[string]Recorded{}
		for name, data := range files {
			out[name] = Recorded{Sum: sha256.Sum256(data), Size: len(data)}
		}
		return out
	}
	readBack := func() map[string][]byte {
		t.Helper()
		back, err := ReadApplied(r)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string][]byte{}
		for name := range back.Files {
			out[name] = back.In(r).Bytes(name)
		}
		return out
	}
	if _, err := writeApplied(r, record(files), func(name string) ([]byte, error) { return files[name], nil }, nil); err != nil {
		t.Fatal(err)
	}
	if back := readBack(); !maps.EqualFunc(files, back, bytes.Equal) {
		t.Errorf("record read back as %q, want %q", back, files)
	}
	failing := errors.New("read failed")
	changed := map[string][]byte{"skillsync.yaml": []byte("kind: Workspace\n")}
	if _, err := writeApplied(r, record(changed), func(string) ([]byte, error) { return nil, failing }, nil); !errors.Is(err, failing) {
		t.Errorf("writeApplied with a failing read = %v, want it", err)
	}
	if back := readBack(); !maps.EqualFunc(files, back, bytes.Equal) {
		t.Errorf("a failed write changed the record: %q", back)
	}
	// Recording one file changed reads only that one, and keeps no bytes nothing
	// lists.
	changed = maps.Clone(files)
	changed["registry/empty.yaml"] = []byte("now something\n")
	var read []string
	if _, err := writeApplied(r, record(changed), func(name string) ([]byte, error) {
		read = append(read, name)
		return changed[name], nil
	}, nil); err != nil {
		t.Fatal(err)
	}
	if back := readBack(); !maps.EqualFunc(changed, back, bytes.Equal) || !slices.Equal(read, []string{"registry/empty.yaml"}) {
		t.Errorf("after one file changed: read %v, record %q", read, back)
	}
	blobs, err := os.ReadDir(filepath.Join(r.Root(), AppliedDir))
	if err != nil {
		t.Fatal(err)
	}
	if len(blobs) != 3 {
		t.Errorf("%d files in %s, want the 3 distinct contents listed", len(blobs), AppliedDir)
	}
	for _, dir := range []string{Dir, AppliedDir} {
		entries, err := os.ReadDir(filepath.Join(r.Root(), dir))
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			if banner.IsTempName(e.Name()) {
				t.Errorf("a write left %s in %s", e.Name(), dir)
			}
		}
	}
}

// A record of the first format, which held the bytes in the list, still reads.
func TestARecordOfTheFirstFormatReads(t *testing.T) {
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, Dir), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, AppliedFile), []byte(`{"files":{"skillsync.yaml":"a2luZDogV29ya3NwYWNlCg=="}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := workspacefs.OS{}.Open(root)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	a, err := ReadApplied(r)
	if err != nil {
		t.Fatal(err)
	}
	if got := a.In(r).Bytes("skillsync.yaml"); string(got) != "kind: Workspace\n" || a.Files["skillsync.yaml"].Size != len(got) {
		t.Errorf("first-format record read as %q, %+v", got, a.Files)
	}
}

// A record whose list names a file with no digest is unreadable, and says what to
// do; one whose kept bytes were removed or changed reads, without them.
func TestABrokenRecord(t *testing.T) {
	root := t.TempDir()
	r, err := workspacefs.OS{}.Open(root)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	data := []byte("kind: Workspace\n")
	if _, err := writeApplied(r, map[string]Recorded{"skillsync.yaml": {Sum: sha256.Sum256(data), Size: len(data)}}, func(string) ([]byte, error) { return data, nil }, nil); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, blobPath(sha256.Sum256(data))), []byte("kind: Other\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	a, err := ReadApplied(r)
	if err != nil || a.In(r).Bytes("skillsync.yaml") != nil {
		t.Errorf("a record whose bytes were changed: %v, bytes %q", err, a.In(r).Bytes("skillsync.yaml"))
	}
	if err := os.WriteFile(filepath.Join(root, AppliedFile), []byte(`{"version":2,"files":{"skillsync.yaml":{"sha256":"nothex","size":3}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	var ps registry.Problems
	if _, err := ReadApplied(r); !errors.As(err, &ps) || !strings.Contains(ps[0].Hint, "remove it") {
		t.Errorf("a list with no digest: %v, want a problem saying what to do", err)
	}
}

// A cached read parses the record again only when its bytes changed.
func TestReadAppliedCached(t *testing.T) {
	root := testkit.ExampleWorkspace(t)
	if _, err := Record(workspacefs.OS{}, loaded(t, root)); err != nil {
		t.Fatal(err)
	}
	r, err := workspacefs.OS{}.Open(root)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var cache AppliedCache
	first, err := ReadAppliedCached(r, &cache)
	if err != nil {
		t.Fatal(err)
	}
	if again, err := ReadAppliedCached(r, &cache); err != nil || again != first {
		t.Errorf("the same record read again: %p, %v, want the one read before, %p", again, err, first)
	}
	file := filepath.Join(root, "registry/intents.yaml")
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, append(data, "# more\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Record(workspacefs.OS{}, loaded(t, root)); err != nil {
		t.Fatal(err)
	}
	changed, err := ReadAppliedCached(r, &cache)
	if err != nil || changed == first || changed.Files["registry/intents.yaml"].Size != len(data)+len("# more\n") {
		t.Errorf("a rewritten record read through the cache: %+v, %v", changed, err)
	}
	if plain, err := ReadApplied(r); err != nil || !maps.Equal(plain.Sums(), changed.Sums()) {
		t.Errorf("a read without the cache differs: %v", err)
	}
}

// What a cached record wrote is what a read of the record finds, without parsing
// it again.
func TestRecordCachedPrimesTheCache(t *testing.T) {
	root := testkit.ExampleWorkspace(t)
	var cache AppliedCache
	if _, err := RecordCached(workspacefs.OS{}, loaded(t, root), &cache); err != nil {
		t.Fatal(err)
	}
	r, err := workspacefs.OS{}.Open(root)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	written := cache.a
	read, err := ReadAppliedCached(r, &cache)
	if err != nil || read != written || written == nil {
		t.Fatalf("read %p (%v), want what was written, %p", read, err, written)
	}
	if plain, err := ReadApplied(r); err != nil || !maps.Equal(plain.Sums(), read.Sums()) || len(read.Files) == 0 {
		t.Errorf("the record written differs from the record on disk: %v", err)
	}
}

// Bytes kept under their digest that a crash cut short are written again by the
// next record, so a cut of the file they record is found again.
func TestKeptBytesCutShortAreWrittenAgain(t *testing.T) {
	root := testkit.ExampleWorkspace(t)
	if _, err := Record(workspacefs.OS{}, loaded(t, root)); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(root, "registry/intents.yaml")
	data, _ := os.ReadFile(file)
	blob := filepath.Join(root, blobPath(sha256.Sum256(data)))
	if err := os.WriteFile(blob, nil, 0o644); err != nil { // empty after a crash
		t.Fatal(err)
	}
	// Another file changes; the next apply records again.
	journal := filepath.Join(root, "registry/journal.yaml")
	j, _ := os.ReadFile(journal)
	os.WriteFile(journal, append(j, "# more\n"...), 0o644)
	if _, err := Record(workspacefs.OS{}, loaded(t, root)); err != nil {
		t.Fatal(err)
	}
	// Now intents.yaml is cut at the end of a line.
	cut := data[:len(data)-200]
	for cut[len(cut)-1] != '\n' {
		cut = cut[:len(cut)-1]
	}
	os.WriteFile(file, cut, 0o644)
	reg, _ := registry.Load(workspacefs.OS{}, root)
	r, _ := workspacefs.OS{}.Open(root)
	defer r.Close()
	applied, err := ReadApplied(r)
	if err != nil {
		t.Fatal(err)
	}
	if cuts := registry.CutOff(applied.In(r), reg); len(cuts) == 0 {
		t.Fatal("the cut of registry/intents.yaml is not found: its recorded bytes were not written again")
	}
}

// A record folder that is a symlink (here to one outside the workspace) is not
// written through: the error names it and says what to do, and nothing lands
// where it leads.
func TestARecordFolderThatIsASymlinkIsNotWrittenThrough(t *testing.T) {
	root, outside := t.TempDir(), t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, Dir), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(root, filepath.FromSlash(AppliedDir))); err != nil {
		t.Skip("no symlinks here:", err)
	}
	r, err := workspacefs.OS{}.Open(root)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	data := []byte("kind: Workspace\n")
	_, err = writeApplied(r, map[string]Recorded{"skillsync.yaml": {Sum: sha256.Sum256(data), Size: len(data)}}, func(string) ([]byte, error) { return data, nil }, nil)
	if err == nil || !strings.Contains(err.Error(), AppliedDir+" is a symlink or a file, not a directory") || !strings.Contains(err.Error(), "remove it") {
		t.Errorf("writeApplied = %v, want it to name the symlink and say to remove it", err)
	}
	if entries, _ := os.ReadDir(outside); len(entries) > 0 {
		t.Errorf("written where the symlink leads: %v", entries)
	}
}
