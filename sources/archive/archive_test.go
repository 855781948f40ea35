package archive

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/skillsync/skillsync/desired/registry"
)

type archived struct {
	name, body string
	mode       int64
	link       string
}

func makeTarGz(t *testing.T, entries ...archived) []byte {
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for _, e := range entries {
		h := &tar.Header{Name: e.name, Mode: e.mode, Size: int64(len(e.body)), Typeflag: tar.TypeReg}
		if h.Mode == 0 {
			h.Mode = 0o644
		}
		if e.link != "" {
			h.Typeflag, h.Linkname, h.Size = tar.TypeSymlink, e.link, 0
		}
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		if e.link == "" {
			tw.Write([]byte(e.body))
		}
	}
	tw.Close()
	gz.Close()
	return buf.Bytes()
}

func zipOf(t *testing.T, entries ...archived) []byte {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, e := range entries {
		h := &zip.FileHeader{Name: e.name, Method: zip.Deflate}
		mode := os.FileMode(0o644)
		if e.mode != 0 {
			mode = os.FileMode(e.mode)
		}
		if e.link != "" {
			mode = os.ModeSymlink | 0o777
		}
		h.SetMode(mode)
		w, err := zw.CreateHeader(h)
		if err != nil {
			t.Fatal(err)
		}
		if e.link != "" {
			w.Write([]byte(e.link))
		} else {
			w.Write([]byte(e.body))
		}
	}
	zw.Close()
	return buf.Bytes()
}

func TestUnpackRefusesWhatCouldEscapeOrFillTheDisk(t *testing.T) {
	many := []archived{}
	for i := range registry.MaxSkillEntries + 1 {
		many = append(many, archived{name: fmt.Sprintf("f%d", i), body: "x"})
	}
	bomb := archived{name: "zeros.bin", body: strings.Repeat("\x00", 17<<20)}
	for _, tc := range []struct {
		name string
		data []byte
		want string
	}{
		{"parent", makeTarGz(t, archived{name: "../evil", body: "x"}), "no path inside"},
		{"absolute", makeTarGz(t, archived{name: "/etc/evil", body: "x"}), "no path inside"},
		{"deep parent", zipOf(t, archived{name: "a/../../evil", body: "x"}), "no path inside"},
		{"backslash", zipOf(t, archived{name: "a\\..\\evil", body: "x"}), "no path inside"},
		{"a line break", makeTarGz(t, archived{name: "a\n  - removed everything.md", body: "x"}), `"a\n  - removed everything.md", which is no path inside`},
		{"an escape", zipOf(t, archived{name: "a\x1b[2J.md", body: "x"}), "no path inside"},
		{"twice", makeTarGz(t, archived{name: "a", body: "x"}, archived{name: "./a", body: "y"}), "twice"},
		{"too many", makeTarGz(t, many...), "more than 1000 files"},
		{"bomb, tar", makeTarGz(t, bomb), "larger than"},
		{"bomb, zip", zipOf(t, bomb), "larger than"},
		{"neither", []byte("plain text"), "neither a .tar.gz nor a .zip"},
		{"a file and a folder", makeTarGz(t, archived{name: "a", body: "x"}, archived{name: "a/b", body: "y"}), "holds a as a file and as a folder"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Unpack(tc.data)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Unpack = %v, want %q", err, tc.want)
			}
		})
	}
	// A folder may come after the files in it, as zip tools write it.
	if files, err := Unpack(zipOf(t, archived{name: "scripts/run.sh", body: "x"}, archived{name: "scripts/"})); err != nil || len(files) != 2 {
		t.Errorf("Unpack of a folder after its file = %+v, %v", files, err)
	}
	// A link is kept as one, for the registry to refuse at its path.
	for _, data := range [][]byte{makeTarGz(t, archived{name: "SKILL.md", body: "x"}, archived{name: "out", link: "/etc/passwd"}),
		zipOf(t, archived{name: "SKILL.md", body: "x"}, archived{name: "out", link: "/etc/passwd"})} {
		files, err := Unpack(data)
		if err != nil || len(files) != 2 || !files[1].Link || files[1].Data != nil {
			t.Errorf("Unpack of a link = %+v, %v", files, err)
		}
	}
}

func TestTarGzUnpacksToTheSameFiles(t *testing.T) {
	files := []registry.SupportFile{
		{Path: "scripts/run.sh", Data: []byte("#!/bin/sh\n"), Executable: true},
		{Path: "SKILL.md", Data: []byte("---\nname: deploy\n---\n")},
		{Path: "assets/logo.png", Data: []byte{0x89, 'P', 'N', 'G', 0, 0xff}},
	}
	for _, root := range []string{"", "deploy"} {
		data, err := TarGz(files, root)
		if err != nil {
			t.Fatal(err)
		}
		again, _ := TarGz([]registry.SupportFile{files[2], files[0], files[1]}, root)
		if !bytes.Equal(data, again) {
			t.Errorf("root %q: the same files in another order give other bytes", root)
		}
		got, err := UnpackFolder(data, root)
		if err != nil {
			t.Fatal(err)
		}
		var paths []string
		for _, f := range got {
			paths = append(paths, fmt.Sprintf("%s dir=%v x=%v %q", f.Path, f.Dir, f.Executable, f.Data))
		}
		want := []string{`SKILL.md dir=false x=false "---\nname: deploy\n---\n"`, `assets dir=true x=false ""`,
			`assets/logo.png dir=false x=false "\x89PNG\x00\xff"`, `scripts dir=true x=false ""`, `scripts/run.sh dir=false x=true "#!/bin/sh\n"`}
		if strings.Join(paths, "\n") != strings.Join(want, "\n") {
			t.Errorf("root %q: unpacked\n%s\nwant\n%s", root, strings.Join(paths, "\n"), strings.Join(want, "\n"))
		}
	}
}

func TestUnpackFolderRefusesEntriesOutsideIt(t *testing.T) {
	for _, tc := range []struct {
		name string
		data []byte
	}{
		{"a sibling", makeTarGz(t, archived{name: "deploy/SKILL.md", body: "x"}, archived{name: "other/SKILL.md", body: "y"})},
		{"a prefix of the name", makeTarGz(t, archived{name: "deployer/SKILL.md", body: "x"})},
		{"the root", makeTarGz(t, archived{name: "SKILL.md", body: "x"})},
		{"the folder as a file", makeTarGz(t, archived{name: "deploy", body: "x"})},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if files, err := UnpackFolder(tc.data, "deploy"); err == nil || !strings.Contains(err.Error(), "outside its folder deploy") {
				t.Errorf("UnpackFolder = %+v, %v", files, err)
			}
		})
	}
}

func TestEntriesSkippedAreCountedAsTheyInflate(t *testing.T) {
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	if err := tw.WriteHeader(&tar.Header{Name: "SKILL.md", Mode: 0o644, Size: 1, Typeflag: tar.TypeReg}); err != nil {
		t.Fatal(err)
	}
	tw.Write([]byte("x"))
	// An entry of no type a skill holds, its data all zeros: little to
	// fetch, much to inflate.
	size := int64(registry.MaxSkillBytes) + 1
	if err := tw.WriteHeader(&tar.Header{Name: "padding", Mode: 0o644, Size: size, Typeflag: 'Z'}); err != nil {
		t.Fatal(err)
	}
	zeros := make([]byte, 1<<20)
	for written := int64(0); written < size; written += int64(len(zeros)) {
		tw.Write(zeros[:min(int64(len(zeros)), size-written)])
	}
	tw.Close()
	gz.Close()
	if _, err := Unpack(buf.Bytes()); err == nil || !strings.Contains(err.Error(), "more than") {
		t.Errorf("Unpack of a skipped entry beyond the limit = %v", err)
	}
}
