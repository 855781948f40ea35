package archive

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"strings"

	"github.com/skillsync/skillsync/desired/registry"
	"github.com/skillsync/skillsync/internal/banner"
)

// unpacked gathers the entries of an archive of one skill directory, checking
// each path and the limits a skill directory has, and makes the folders the
// archive leaves implied.
type unpacked struct {
	// root is the folder every entry must be in, stripped from its path; ""
	// when the archive's root is the skill directory.
	root  string
	files []registry.SourceFile
	dirs  map[string]bool // path → whether it is a folder, for every path added
	total int64
}

// add adds the entry name of an archive; it is refused when its path could
// reach outside the skill directory, names something twice (a folder may come
// again, after the files in it), or breaks a limit.
func (u *unpacked) add(name string, f registry.SourceFile) error {
	clean := strings.TrimSuffix(strings.TrimPrefix(name, "./"), "/")
	if clean == "" || clean == "." {
		return nil
	}
	if !registry.ValidSourcePath(clean) {
		return fmt.Errorf("the archive holds %q, which is no path inside the skill directory", name)
	}
	if u.root != "" {
		if clean == u.root && f.Dir {
			return nil
		}
		rel, ok := strings.CutPrefix(clean, u.root+"/")
		if !ok {
			return fmt.Errorf("the archive holds %q, which is outside its folder %s", name, u.root)
		}
		clean = rel
	}
	return u.addClean(clean, f)
}

// addClean adds the entry at clean, a path inside the skill directory.
func (u *unpacked) addClean(clean string, f registry.SourceFile) error {
	if isDir, seen := u.dirs[clean]; seen {
		if isDir && f.Dir {
			return nil
		}
		return fmt.Errorf("the archive holds %s twice", clean)
	}
	if dir := path.Dir(clean); dir != "." {
		if isDir, seen := u.dirs[dir]; seen && !isDir {
			return fmt.Errorf("the archive holds %s as a file and as a folder", dir)
		} else if !seen {
			if err := u.addClean(dir, registry.SourceFile{Dir: true}); err != nil {
				return err
			}
		}
	}
	if len(u.files) >= registry.MaxSkillEntries {
		return fmt.Errorf("the archive holds more than %d files and folders", registry.MaxSkillEntries)
	}
	if u.total += int64(len(f.Data)); u.total > registry.MaxSkillBytes {
		return fmt.Errorf("the archive holds more than %d bytes", registry.MaxSkillBytes)
	}
	f.Path = clean
	u.dirs[clean] = f.Dir
	u.files = append(u.files, f)
	return nil
}

// readBounded reads r whole, refusing more than banner.MaxSupportingFileSize
// bytes whatever the archive's header said.
func readBounded(r io.Reader, name string) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, banner.MaxSupportingFileSize+1))
	if err != nil {
		return nil, fmt.Errorf("read %s of the archive: %w", name, err)
	}
	if len(data) > banner.MaxSupportingFileSize {
		return nil, fmt.Errorf("%s of the archive is larger than %d bytes", name, banner.MaxSupportingFileSize)
	}
	return data, nil
}

// Unpack reads an archive of one skill directory, a .tar.gz or a .zip told by
// its first bytes, its root the directory itself. A link is kept as one, for
// the registry to refuse at its path; a path out of the directory, and more
// files or bytes than a skill directory holds, refuse the archive.
func Unpack(data []byte) ([]registry.SourceFile, error) { return UnpackFolder(data, "") }

// UnpackFolder is Unpack of an archive whose every entry is in the folder root
// (as oras packs a directory): the paths returned are relative to it.
func UnpackFolder(data []byte, root string) ([]registry.SourceFile, error) {
	u := &unpacked{root: root, dirs: map[string]bool{}}
	var err error
	switch {
	case bytes.HasPrefix(data, []byte{0x1f, 0x8b}):
		err = u.tarGz(data)
	case bytes.HasPrefix(data, []byte("PK\x03\x04")), bytes.HasPrefix(data, []byte("PK\x05\x06")):
		err = u.zip(data)
	default:
		err = errors.New("the archive is neither a .tar.gz nor a .zip")
	}
	return u.files, err
}

func (u *unpacked) tarGz(data []byte) error {
	gz, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return fmt.Errorf("the archive is not gzip: %w", err)
	}
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("the archive is not tar: %w", err)
		}
		var f registry.SourceFile
		if h.Typeflag != tar.TypeReg && h.Size > 0 {
			// Skipped, but inflated all the same: counted, so that an entry
			// of no kind a skill holds cannot make a bomb of one.
			if u.total += h.Size; u.total > registry.MaxSkillBytes {
				return fmt.Errorf("the archive holds more than %d bytes", registry.MaxSkillBytes)
			}
		}
		switch h.Typeflag {
		case tar.TypeXGlobalHeader:
			continue
		case tar.TypeDir:
			f.Dir = true
		case tar.TypeReg:
			if h.Size > banner.MaxSupportingFileSize {
				return fmt.Errorf("%s of the archive is larger than %d bytes", h.Name, banner.MaxSupportingFileSize)
			}
			if f.Data, err = readBounded(tr, h.Name); err != nil {
				return err
			}
			f.Executable = h.Mode&0o111 != 0
		case tar.TypeSymlink:
			f.Link = true
		default:
			f.Other = true
		}
		if err := u.add(h.Name, f); err != nil {
			return err
		}
	}
}

func (u *unpacked) zip(data []byte) error {
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return fmt.Errorf("the archive is not a zip: %w", err)
	}
	for _, zf := range zr.File {
		var f registry.SourceFile
		mode := zf.Mode()
		switch {
		case mode.IsDir():
			f.Dir = true
		case mode&fs.ModeSymlink != 0:
			f.Link = true
		case !mode.IsRegular():
			f.Other = true
		default:
			if zf.UncompressedSize64 > banner.MaxSupportingFileSize {
				return fmt.Errorf("%s of the archive is larger than %d bytes", zf.Name, banner.MaxSupportingFileSize)
			}
			rc, err := zf.Open()
			if err != nil {
				return fmt.Errorf("read %s of the archive: %w", zf.Name, err)
			}
			f.Data, err = readBounded(rc, zf.Name)
			rc.Close()
			if err != nil {
				return err
			}
			f.Executable = mode&0o111 != 0
		}
		if err := u.add(zf.Name, f); err != nil {
			return err
		}
	}
	return nil
}
