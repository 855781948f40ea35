package archive

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"slices"
	"strings"

	"github.com/skillsync/skillsync/desired/registry"
)

// MaxSize is the most bytes an archive of one skill directory may have, as
// fetched: more is refused before it is unpacked.
const MaxSize = 64 << 20

// TarGz is files, a skill directory, as a .tar.gz: each file in path order
// under the folder root ("" puts them at the archive's root), with no times,
// owners or folder entries beyond root's, so that the same files give the same
// bytes.
func TarGz(files []registry.SupportFile, root string) ([]byte, error) {
	var buf bytes.Buffer
	gz, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	tw := tar.NewWriter(gz)
	prefix := ""
	if root != "" {
		prefix = root + "/"
		if err := tw.WriteHeader(&tar.Header{Name: prefix, Mode: 0o755, Typeflag: tar.TypeDir}); err != nil {
			return nil, err
		}
	}
	files = slices.Clone(files)
	slices.SortFunc(files, func(a, b registry.SupportFile) int { return strings.Compare(a.Path, b.Path) })
	for _, f := range files {
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
	if err := gz.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
