package workspacefs

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// openTestDir makes a temporary directory and opens it as a Dir through an *os.Root.
func openTestDir(t *testing.T) (string, Dir) {
	t.Helper()
	path := t.TempDir()
	return path, openDirAt(t, path)
}

// openTestDirOfEachType is openTestDir with one entry of each type made in it
// first (makeOneOfEachType): where the system has no FIFOs the test is skipped
// before it opens anything.
func openTestDirOfEachType(t *testing.T) (string, Dir) {
	t.Helper()
	path := t.TempDir()
	makeOneOfEachType(t, path)
	return path, openDirAt(t, path)
}

func openDirAt(t *testing.T, path string) Dir {
	t.Helper()
	root, err := os.OpenRoot(path)
	mustDo(t, err)
	t.Cleanup(func() { root.Close() })
	d, err := OpenDir(root, ".")
	mustDo(t, err)
	t.Cleanup(func() { d.Close() })
	return d
}

func mustWrite(t *testing.T, path, content string) {
	t.Helper()
	mustDo(t, os.WriteFile(path, []byte(content), 0o644))
}

func mustDo(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func wantContent(t *testing.T, path, want string) {
	t.Helper()
	if got, err := os.ReadFile(path); err != nil || string(got) != want {
		t.Errorf("%s holds %q (%v), want %q", filepath.Base(path), got, err, want)
	}
}

func lstatMode(t *testing.T, path string) fs.FileMode {
	t.Helper()
	info, err := os.Lstat(path)
	mustDo(t, err)
	return info.Mode()
}

// makeOneOfEachType puts in path a directory, a FIFO, a regular file holding "x"
// and a symlink to that file, named for their types.
func makeOneOfEachType(t *testing.T, path string) {
	t.Helper()
	mustDo(t, os.Mkdir(filepath.Join(path, "dir"), 0o755))
	makeFIFO(t, filepath.Join(path, "fifo"))
	mustWrite(t, filepath.Join(path, "file"), "x")
	mustDo(t, os.Symlink("file", filepath.Join(path, "link")))
}

func entryNames(t *testing.T, d Dir) []string {
	t.Helper()
	entries, err := d.Entries()
	mustDo(t, err)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name)
	}
	return names
}

func TestOpenDirAndSub(t *testing.T) {
	path, outside := t.TempDir(), t.TempDir()
	mustWrite(t, filepath.Join(outside, "secret"), "secret")
	mustDo(t, os.Mkdir(filepath.Join(path, "real"), 0o755))
	mustWrite(t, filepath.Join(path, "real", "f"), "x")
	mustDo(t, os.Symlink("real", filepath.Join(path, "link")))
	mustDo(t, os.Symlink(outside, filepath.Join(path, "outside-link")))
	root, err := os.OpenRoot(path)
	mustDo(t, err)
	defer root.Close()

	opened, err := OpenDir(root, "real")
	mustDo(t, err)
	defer opened.Close()
	top, err := OpenDir(root, ".")
	mustDo(t, err)
	defer top.Close()
	sub, err := top.Sub("real")
	mustDo(t, err)
	defer sub.Close()
	for _, d := range []Dir{opened, sub} {
		if got := entryNames(t, d); !slices.Equal(got, []string{"f"}) {
			t.Errorf("real lists %q, want [f]", got)
		}
	}
	for _, name := range []string{"link", "outside-link"} {
		if linked, err := top.Sub(name); err == nil || linked != nil {
			t.Errorf("Sub followed the symlink %s: %v, %v", name, linked, err)
		}
	}
	t.Run("OpenDirRefusesSymlink", func(t *testing.T) {
		if linked, err := OpenDir(root, "link"); err == nil {
			linked.Close()
			t.Error("OpenDir followed a symlink in its last element")
		}
	})
}

func TestEntriesSortedWithTypes(t *testing.T) {
	path, d := openTestDir(t)
	if got := entryNames(t, d); len(got) != 0 {
		t.Errorf("empty directory lists %q", got)
	}
	makeOneOfEachType(t, path)
	got, err := d.Entries()
	mustDo(t, err)
	want := []Entry{{"dir", fs.ModeDir}, {"fifo", fs.ModeIrregular}, {"file", 0}, {"link", fs.ModeSymlink}}
	if !slices.Equal(got, want) {
		t.Fatalf("Entries = %v, want %v", got, want)
	}
	if !got[2].Type.IsRegular() {
		t.Errorf("a regular file's type %v is not regular", got[2].Type)
	}
}

// EntriesStamped lists what Entries lists, with the stamp its parent gives the
// directory by name, taken before the listing: an entry added after it changes
// the directory's stamp from the one returned.
func TestEntriesStampedStampsTheDirectoryItLists(t *testing.T) {
	path, d := openTestDir(t)
	mustDo(t, os.Mkdir(filepath.Join(path, "skill"), 0o755))
	mustWrite(t, filepath.Join(path, "skill", "SKILL.md"), "x")
	skill, err := d.Sub("skill")
	mustDo(t, err)
	defer skill.Close()
	entries, stamp, err := skill.EntriesStamped()
	mustDo(t, err)
	if want := []Entry{{"SKILL.md", 0}}; !slices.Equal(entries, want) {
		t.Errorf("EntriesStamped lists %v, want %v", entries, want)
	}
	byName, err := d.Stamp("skill")
	mustDo(t, err)
	if !stamp.Valid || stamp != byName {
		t.Errorf("EntriesStamped stamps %+v, the parent %+v", stamp, byName)
	}
	// Far enough apart for a filesystem that keeps whole seconds.
	later := time.Now().Add(2 * time.Second)
	mustWrite(t, filepath.Join(path, "skill", "notes.md"), "y")
	mustDo(t, os.Chtimes(filepath.Join(path, "skill"), later, later))
	_, again, err := skill.EntriesStamped()
	mustDo(t, err)
	if again == stamp {
		t.Error("an entry added left the directory's stamp as it was")
	}
}

func TestEntriesSpanningManyBuffers(t *testing.T) {
	path, d := openTestDir(t)
	var want []string
	// At 64 bytes a record, 600 entries take several 8 KiB getdents buffers.
	for i := 599; i >= 0; i-- {
		name := fmt.Sprintf("skill-with-a-rather-long-name-number-%04d", i)
		mustWrite(t, filepath.Join(path, name), "")
		want = append(want, name)
	}
	slices.Sort(want)
	if got := entryNames(t, d); !slices.Equal(got, want) {
		t.Fatalf("got %d names, want the %d created, each once and sorted", len(got), len(want))
	}
	// A second listing starts again from the beginning of the directory.
	if got := entryNames(t, d); !slices.Equal(got, want) {
		t.Fatalf("second listing: got %d names, want %d", len(got), len(want))
	}
}

// Entries agrees with the standard library's listing, name for name and type for
// type, over names of every length a record can have (1 to 255 bytes, so every
// padding of a raw directory record), multibyte names and every type of file.
func TestEntriesAgreeWithTheStandardLibrary(t *testing.T) {
	path, d := openTestDirOfEachType(t)
	for n := 1; n <= 255; n++ {
		name := strings.Repeat(string(rune('a'+n%26)), n)
		if n%3 == 0 {
			mustDo(t, os.Mkdir(filepath.Join(path, name), 0o755))
		} else {
			mustWrite(t, filepath.Join(path, name), "")
		}
	}
	for _, name := range []string{"ünïcödé", "技能", "emoji-🙂", "space name", "-dash", ".hidden"} {
		mustWrite(t, filepath.Join(path, name), "")
	}
	std, err := os.ReadDir(path)
	mustDo(t, err)
	var want []Entry
	for _, e := range std {
		want = append(want, Entry{Name: e.Name(), Type: typeOfEntry(e.Type())})
	}
	got, err := d.Entries()
	mustDo(t, err)
	if !slices.Equal(got, want) {
		t.Fatalf("Entries differs from os.ReadDir:\n got %v\nwant %v", got, want)
	}
}

// typeOfEntry reduces a standard library type to Entry's four.
func typeOfEntry(mode fs.FileMode) fs.FileMode {
	switch mode.Type() {
	case 0, fs.ModeDir, fs.ModeSymlink:
		return mode.Type()
	}
	return fs.ModeIrregular
}

func TestDirReadRegularContent(t *testing.T) {
	path, d := openTestDir(t)
	large := strings.Repeat("0123456789", 10_000)
	for _, c := range []struct {
		name, content string
		limit         int64
	}{
		{"small", "hello", 100},
		{"empty", "", 100},
		{"exactly-limit", "12345", 5},
		{"large", large, 1 << 20},
	} {
		mustWrite(t, filepath.Join(path, c.name), c.content)
		if got, err := d.ReadRegular(c.name, c.limit); err != nil || string(got) != c.content {
			t.Errorf("%s: read %d bytes (%v), want %d", c.name, len(got), err, len(c.content))
		}
	}
	mustWrite(t, filepath.Join(path, "over-limit"), "123456")
	if got, err := d.ReadRegular("over-limit", 5); !errors.Is(err, ErrTooLarge) {
		t.Errorf("limit+1 bytes: %q, %v, want ErrTooLarge", got, err)
	}
}

// A file in /proc says it holds 0 bytes, so ReadRegular must read past what fstat reports.
func TestDirReadRegularPastStatSize(t *testing.T) {
	root, err := os.OpenRoot("/proc/self")
	if err != nil {
		t.Skip(err)
	}
	defer root.Close()
	d, err := OpenDir(root, ".")
	mustDo(t, err)
	defer d.Close()
	want := strings.Join(os.Args, "\x00") + "\x00"
	if got, err := d.ReadRegular("cmdline", 1<<20); err != nil || string(got) != want {
		t.Errorf("cmdline: %q (%v), want %q", got, err, want)
	}
	if _, err := d.ReadRegular("cmdline", int64(len(want)-1)); !errors.Is(err, ErrTooLarge) {
		t.Errorf("cmdline with a limit a byte short: %v, want ErrTooLarge", err)
	}
}

func TestDirReadRegularRefusesNonRegular(t *testing.T) {
	_, d := openTestDirOfEachType(t)
	for _, name := range []string{"link", "dir", "fifo"} {
		done := make(chan error, 1)
		go func() {
			_, err := d.ReadRegular(name, 100)
			done <- err
		}()
		select {
		case err := <-done:
			if !errors.Is(err, ErrNotRegular) {
				t.Errorf("%s: %v, want ErrNotRegular", name, err)
			}
		case <-time.After(10 * time.Second): // a hang guard: a FIFO with no writer blocks forever
			t.Fatalf("%s: ReadRegular blocked", name)
		}
	}
	if _, err := d.ReadRegular("missing", 100); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing: %v, want fs.ErrNotExist", err)
	}
}

func TestWriteNew(t *testing.T) {
	path, d := openTestDir(t)
	mustDo(t, d.WriteNew("new", []byte("content"), 0o604))
	wantContent(t, filepath.Join(path, "new"), "content")
	// The reference file goes through the same umask, which the test leaves alone.
	ref, err := os.OpenFile(filepath.Join(path, "ref"), os.O_CREATE|os.O_EXCL, 0o604)
	mustDo(t, err)
	ref.Close()
	if got, want := lstatMode(t, filepath.Join(path, "new")), lstatMode(t, filepath.Join(path, "ref")); !got.IsRegular() || got != want {
		t.Errorf("new file's mode is %v, want %v", got, want)
	}
	if err := d.WriteNew("new", []byte("other"), 0o644); !errors.Is(err, fs.ErrExist) {
		t.Errorf("over an existing file: %v, want fs.ErrExist", err)
	}
	wantContent(t, filepath.Join(path, "new"), "content")

	mustDo(t, os.Symlink("new", filepath.Join(path, "link")))
	mustDo(t, os.Symlink("not-there", filepath.Join(path, "dangling")))
	for _, name := range []string{"link", "dangling"} {
		if err := d.WriteNew(name, []byte("through the link"), 0o644); !errors.Is(err, fs.ErrExist) {
			t.Errorf("over the symlink %s: %v, want fs.ErrExist", name, err)
		}
	}
	wantContent(t, filepath.Join(path, "new"), "content")
	if _, err := os.Lstat(filepath.Join(path, "not-there")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a dangling symlink's target was created: %v", err)
	}
}

func TestLink(t *testing.T) {
	path, d := openTestDir(t)
	mustWrite(t, filepath.Join(path, "old"), "old")
	mustWrite(t, filepath.Join(path, "taken"), "taken")

	err := d.Link("old", "taken")
	var linkErr *os.LinkError
	if !errors.Is(err, fs.ErrExist) || !errors.As(err, &linkErr) || !strings.HasSuffix(linkErr.New, "/taken") {
		t.Errorf("onto an existing name: %v, want a *os.LinkError naming taken, fs.ErrExist", err)
	}
	wantContent(t, filepath.Join(path, "taken"), "taken")

	mustDo(t, d.Link("old", "new"))
	wantContent(t, filepath.Join(path, "new"), "old")
	oldInfo, err1 := os.Stat(filepath.Join(path, "old"))
	newInfo, err2 := os.Stat(filepath.Join(path, "new"))
	if errors.Join(err1, err2) != nil || !os.SameFile(oldInfo, newInfo) {
		t.Errorf("new is not a hard link to old (%v, %v)", err1, err2)
	}
}

func TestRenameReplaces(t *testing.T) {
	path, d := openTestDir(t)
	mustWrite(t, filepath.Join(path, "tmp"), "new")
	mustWrite(t, filepath.Join(path, "file"), "old")
	mustDo(t, d.Rename("tmp", "file"))
	wantContent(t, filepath.Join(path, "file"), "new")
	if _, err := os.Lstat(filepath.Join(path, "tmp")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("tmp is still there: %v", err)
	}
}

func TestRemoveFileNotDirectory(t *testing.T) {
	path, d := openTestDirOfEachType(t)
	mustDo(t, d.Remove("file"))
	if _, err := os.Lstat(filepath.Join(path, "file")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("file is still there: %v", err)
	}
	if err := d.Remove("dir"); err == nil {
		t.Error("Remove removed a directory")
	}
	if mode := lstatMode(t, filepath.Join(path, "dir")); !mode.IsDir() {
		t.Errorf("dir is now %v", mode)
	}
}

func TestMkdirAndLstat(t *testing.T) {
	path, d := openTestDir(t)
	mustDo(t, d.Mkdir("made", 0o755))
	if err := d.Mkdir("made", 0o755); !errors.Is(err, fs.ErrExist) {
		t.Errorf("Mkdir over a directory: %v, want fs.ErrExist", err)
	}
	makeOneOfEachType(t, path)
	for name, want := range map[string]fs.FileMode{"made": fs.ModeDir, "dir": fs.ModeDir, "fifo": fs.ModeIrregular, "file": 0, "link": fs.ModeSymlink} {
		if got, err := d.Lstat(name); err != nil || got != want {
			t.Errorf("Lstat(%s) = %v, %v, want %v", name, got, err, want)
		}
	}
}

func TestErrorsNameThePath(t *testing.T) {
	path, d := openTestDir(t)
	mustDo(t, os.Mkdir(filepath.Join(path, "sub"), 0o755))
	mustWrite(t, filepath.Join(path, "sub", "exists"), "x")
	sub, err := d.Sub("sub")
	mustDo(t, err)
	defer sub.Close()

	for _, c := range []struct {
		op, name string
		err      error
	}{
		{"Sub", "missing", func() error { _, err := sub.Sub("missing"); return err }()},
		{"ReadRegular", "missing", func() error { _, err := sub.ReadRegular("missing", 10); return err }()},
		{"Lstat", "missing", func() error { _, err := sub.Lstat("missing"); return err }()},
		{"Remove", "missing", sub.Remove("missing")},
		{"Mkdir", "exists", sub.Mkdir("exists", 0o755)},
		{"WriteNew", "exists", sub.WriteNew("exists", nil, 0o644)},
	} {
		var pathErr *fs.PathError
		if !errors.As(c.err, &pathErr) || !strings.HasSuffix(pathErr.Path, "sub/"+c.name) {
			t.Errorf("%s(%s): %#v, want a *fs.PathError whose path ends in sub/%s", c.op, c.name, c.err, c.name)
		}
	}
	wantContent(t, filepath.Join(path, "sub", "exists"), "x")
}

// Exchange swaps two files in one step, or, where the system cannot (the
// portable Dir), says so and leaves both as they are.
func TestExchange(t *testing.T) {
	path, d := openTestDir(t)
	mustWrite(t, filepath.Join(path, "tmp"), "new")
	mustWrite(t, filepath.Join(path, "file"), "old")
	err := d.Exchange("tmp", "file")
	if errors.Is(err, ErrExchangeUnsupported) {
		wantContent(t, filepath.Join(path, "file"), "old")
		wantContent(t, filepath.Join(path, "tmp"), "new")
		return
	}
	mustDo(t, err)
	wantContent(t, filepath.Join(path, "file"), "new")
	wantContent(t, filepath.Join(path, "tmp"), "old")
	if err := d.Exchange("tmp", "missing"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Exchange with a name that is not there = %v, want fs.ErrNotExist", err)
	}
	wantContent(t, filepath.Join(path, "tmp"), "old")
}

func TestNamesThatLeaveTheDirectoryAreRefused(t *testing.T) {
	path, _ := openTestDir(t)
	inner := filepath.Join(path, "inner")
	mustDo(t, os.Mkdir(inner, 0o755))
	mustWrite(t, filepath.Join(path, "secret"), "outside")
	root, err := os.OpenRoot(path)
	mustDo(t, err)
	defer root.Close()
	d, err := OpenDir(root, "inner")
	mustDo(t, err)
	defer d.Close()
	for _, name := range []string{"..", "../secret", "a/b", "", "."} {
		if _, err := d.ReadRegular(name, 100); !errors.Is(err, ErrNotOneElement) {
			t.Errorf("ReadRegular(%q) = %v, want ErrNotOneElement", name, err)
		}
		if err := d.WriteNew(name, []byte("x"), 0o644); !errors.Is(err, ErrNotOneElement) {
			t.Errorf("WriteNew(%q) = %v, want ErrNotOneElement", name, err)
		}
		if err := d.Remove(name); !errors.Is(err, ErrNotOneElement) {
			t.Errorf("Remove(%q) = %v, want ErrNotOneElement", name, err)
		}
		if err := d.Link("x", name); !errors.Is(err, ErrNotOneElement) {
			t.Errorf("Link(x, %q) = %v, want ErrNotOneElement", name, err)
		}
		if err := d.Rename(name, "x"); !errors.Is(err, ErrNotOneElement) {
			t.Errorf("Rename(%q, x) = %v, want ErrNotOneElement", name, err)
		}
		if err := d.Exchange("x", name); !errors.Is(err, ErrNotOneElement) {
			t.Errorf("Exchange(x, %q) = %v, want ErrNotOneElement", name, err)
		}
	}
	if sub, err := d.Sub(".."); err == nil {
		sub.Close()
		t.Error("Sub(..) opened the parent")
	}
	wantContent(t, filepath.Join(path, "secret"), "outside")
	if entries, _ := os.ReadDir(path); len(entries) != 2 {
		t.Errorf("the parent now holds %d entries, want 2 (inner, secret)", len(entries))
	}
}

// Beneath, and the walk it falls back to without openat2, open a directory by a
// relative path and follow no symlink anywhere on it: a directory moved out of
// the workspace and replaced by a symlink is not reached through the old path.
func TestBeneathFollowsNoSymlink(t *testing.T) {
	for name, open := range map[string]func(d *osDir, rel string) (Dir, error){
		"openat2": (*osDir).Beneath,
		"walk":    func(d *osDir, rel string) (Dir, error) { return asDir(d.walk(rel)) },
	} {
		t.Run(name, func(t *testing.T) {
			base := t.TempDir()
			ws, outside := filepath.Join(base, "ws"), filepath.Join(base, "outside")
			for _, dir := range []string{"ws/a/b", "ws/t/s", "outside"} {
				mustDo(t, os.MkdirAll(filepath.Join(base, dir), 0o755))
			}
			mustWrite(t, filepath.Join(ws, "a/b/f"), "x")
			mustDo(t, os.Symlink("a", filepath.Join(ws, "la")))
			mustDo(t, os.Symlink("b", filepath.Join(ws, "a/lb")))
			root, err := os.OpenRoot(ws)
			mustDo(t, err)
			defer root.Close()
			d, err := openDir(root, ".")
			mustDo(t, err)
			defer d.Close()

			b, err := open(d, "a/b")
			mustDo(t, err)
			if got := entryNames(t, b); !slices.Equal(got, []string{"f"}) {
				t.Errorf("a/b lists %q", got)
			}
			b.Close()
			for _, rel := range []string{"la/b", "a/lb", "la"} {
				if sub, err := open(d, rel); err == nil {
					sub.Close()
					t.Errorf("%s opened through a symlink", rel)
				}
			}
			for _, rel := range []string{"..", "a/../a", "", "a//b", "a/b/"} {
				if sub, err := open(d, rel); !errors.Is(err, ErrNotOneElement) {
					if err == nil {
						sub.Close()
					}
					t.Errorf("open(%q) = %v, want ErrNotOneElement", rel, err)
				}
			}
			mustDo(t, os.Rename(filepath.Join(ws, "t/s"), filepath.Join(outside, "s")))
			mustDo(t, os.Symlink(filepath.Join(outside, "s"), filepath.Join(ws, "t/s")))
			if sub, err := open(d, "t/s"); err == nil {
				sub.Close()
				t.Error("t/s, moved out and replaced by a symlink, was opened")
			}
		})
	}
}

func TestRmdirRemovesOnlyAnEmptyDirectory(t *testing.T) {
	path, d := openTestDir(t)
	mustDo(t, os.Mkdir(filepath.Join(path, "empty"), 0o755))
	mustDo(t, os.Mkdir(filepath.Join(path, "full"), 0o755))
	mustWrite(t, filepath.Join(path, "full/f"), "kept")
	mustWrite(t, filepath.Join(path, "file"), "kept")
	mustDo(t, os.Symlink("full", filepath.Join(path, "link")))
	mustDo(t, d.Rmdir("empty"))
	if _, err := os.Lstat(filepath.Join(path, "empty")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("empty directory still there: %v", err)
	}
	for _, name := range []string{"full", "file", "link"} {
		if err := d.Rmdir(name); err == nil {
			t.Errorf("Rmdir(%s) removed it", name)
		}
	}
	wantContent(t, filepath.Join(path, "full/f"), "kept")
	wantContent(t, filepath.Join(path, "file"), "kept")
	if lstatMode(t, filepath.Join(path, "link"))&fs.ModeSymlink == 0 {
		t.Error("the symlink is gone")
	}
}

func TestRenameNoReplace(t *testing.T) {
	path, d := openTestDir(t)
	mustWrite(t, filepath.Join(path, "tmp"), "new")
	mustWrite(t, filepath.Join(path, "taken"), "a person's")
	err := d.RenameNoReplace("tmp", "taken")
	if errors.Is(err, ErrNoReplaceUnsupported) {
		t.Skip("renameat2 cannot refuse to replace on this filesystem")
	}
	if !errors.Is(err, fs.ErrExist) {
		t.Errorf("RenameNoReplace onto an existing name = %v, want fs.ErrExist", err)
	}
	wantContent(t, filepath.Join(path, "taken"), "a person's")
	wantContent(t, filepath.Join(path, "tmp"), "new")
	mustDo(t, d.RenameNoReplace("tmp", "free"))
	wantContent(t, filepath.Join(path, "free"), "new")
	if _, err := os.Lstat(filepath.Join(path, "tmp")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the old name is still there: %v", err)
	}
}
