package archive

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"slices"
	"strings"

	"github.com/skillsync/skillsync/desired/registry"
)

// Limits on what a source's archives hold.
const (
	// MaxSize is the most bytes an archive of one skill directory may have,
	// as fetched: more is refused before it is unpacked.
	MaxSize = 64 << 20
	// MaxSourceBytes is the most bytes the skills one source gives may hold,
	// unpacked, together: what a git source's folder may hold.
	MaxSourceBytes = 512 << 20
	// MaxSourceSkills is the most skills one artifact or index may name.
	MaxSourceSkills = 10_000
)

// TarGz is files, a skill directory, as a .tar.gz: each file in path order
// under the folder root ("" puts them at the archive's root), with no times,
// owners or folder entries beyond root's, so that the same files give the same
// bytes.
func TarGz(files []registry.SupportFile, root string) ([]byte, error) {
	t, err := Tar(files, root)
	if err != nil {
		return nil, err
	}
	return Gzip(t), nil
}

// Tar is TarGz before it is compressed.
func Tar(files []registry.SupportFile, root string) ([]byte, error) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	prefix := ""
	if root != "" {
		prefix = root + "/"
		if err := tw.WriteHeader(&tar.Header{Name: prefix, Mode: 0o755, Typeflag: tar.TypeDir}); err != nil {
			return nil, err
		}
	}
	files = slices.Clone(files)
	slices.SortFunc(files, func(a, b registry.SupportFile) int { return strings.Compare(a.Path, b.Path) })
	folders := map[string]bool{}
	for _, f := range files {
		// Under a root, every folder has its entry before its files, as oras
		// writes a directory and needs it to unpack one.
		if root != "" {
			parts := strings.Split(f.Path, "/")
			for i := 1; i < len(parts); i++ {
				dir := strings.Join(parts[:i], "/")
				if folders[dir] {
					continue
				}
				folders[dir] = true
				if err := tw.WriteHeader(&tar.Header{Name: prefix + dir + "/", Mode: 0o755, Typeflag: tar.TypeDir}); err != nil {
					return nil, err
				}
			}
		}
		mode := int64(0o644)
		if f.Executable {
			mode = 0o755
		}
		if err := tw.WriteHeader(&tar.Header{Name: prefix + f.Path, Mode: mode, Size: int64(len(f.Data)), Typeflag: tar.TypeReg}); err != nil {
			return nil, err
		}
		if _, err := tw.Write(f.Data); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// Gzip compresses data, at the best compression: the same bytes give the same
// bytes.
func Gzip(data []byte) []byte {
	var buf bytes.Buffer
	gz, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	gz.Write(data) // a bytes.Buffer takes every byte
	gz.Close()
	return buf.Bytes()
}

// SkillDir is one skill directory to publish: its name and description, its
// SKILL.md and every other file, as the registry read them.
type SkillDir struct {
	Name, Description string
	SkillMD           []byte
	Files             []registry.SupportFile
}

// All is every file of s, its SKILL.md first.
func (s SkillDir) All() []registry.SupportFile {
	return append([]registry.SupportFile{{Path: "SKILL.md", Data: s.SkillMD}}, s.Files...)
}
