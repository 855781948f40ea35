package git

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os/exec"
	"path"
	"strings"

	"github.com/skillsync/skillsync/desired/registry"
	"github.com/skillsync/skillsync/internal/printable"
)

// File is one file or folder of a commit's folder, its path relative to it.
type File struct {
	Path       string
	Dir        bool
	Executable bool
	Data       []byte
}

// Limits bound what one folder of a commit may hold, so that a hostile or
// mistaken repository cannot fill memory or the disk.
type Limits struct {
	Files    int   // files and folders
	Bytes    int64 // all files together
	FileSize int64 // one file
}

// DefaultLimits hold a catalog of a few thousand skills of the size the
// registry accepts for one skill.
var DefaultLimits = Limits{Files: 50_000, Bytes: 512 << 20, FileSize: 16 << 20}

// Files lists the folder dir (the repository's root when empty) of commit of
// remote, from the cache, which must hold it (Fetch). A symlink, a submodule,
// or anything else that is no file or folder is refused at its path, as the
// registry refuses it in a skill directory, and so is a folder beyond limits.
func (c Cache) Files(ctx context.Context, remote, commit, dir string, limits Limits) ([]File, error) {
	if !IsCommit(commit) {
		return nil, fmt.Errorf("read %s: %q is not a full commit id", registry.RedactRemote(remote), commit)
	}
	if c.Dir == "" {
		return nil, errNoCache
	}
	dir = strings.Trim(path.Clean("/"+dir), "/")
	treeish := commit
	if dir != "" {
		treeish += ":" + dir
	}
	repo := c.repo(remote)
	if !c.has(ctx, repo, commit) {
		return nil, fmt.Errorf("commit %s of %s is not in the cache (%s)", commit, registry.RedactRemote(remote), c.Dir)
	}
	if dir != "" {
		if out, err := c.git(ctx, repo, "cat-file", "-t", treeish); err != nil || strings.TrimSpace(string(out)) != "tree" {
			return nil, fmt.Errorf("commit %s of %s has no folder %s", commit, registry.RedactRemote(remote), dir)
		}
	}
	// git archive leaves a submodule out without a word: find one first.
	tree, err := c.git(ctx, repo, "ls-tree", "-r", "-z", treeish)
	if err != nil {
		return nil, fmt.Errorf("list %s of commit %s of %s: %w", orRoot(dir), commit, registry.RedactRemote(remote), err)
	}
	for _, entry := range bytes.Split(tree, []byte{0}) {
		if meta, name, ok := bytes.Cut(entry, []byte{'\t'}); ok && bytes.HasPrefix(meta, []byte("160000 ")) {
			return nil, fmt.Errorf("%s of commit %s of %s: %s is a submodule; a skill carries files, not other repositories", orRoot(dir), commit, registry.RedactRemote(remote), printable.String(path.Join(dir, string(name))))
		}
	}
	// Git writes the archive; skillsync reads it as it comes, so that a bound
	// stops the read without holding more than it allows.
	cmd := exec.CommandContext(ctx, "git", "--git-dir", repo, "-c", "tar.umask=022", "archive", "--format=tar", treeish)
	cmd.Env = append(append(cmd.Environ(), "GIT_TERMINAL_PROMPT=0", "LC_ALL=C"), c.Env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("git archive: %w", err)
	}
	files, readErr := readTar(stdout, dir, limits)
	if readErr != nil {
		// Stop git rather than read the rest of what was refused.
		cmd.Process.Kill()
	}
	waitErr := cmd.Wait()
	if readErr != nil {
		return nil, fmt.Errorf("commit %s of %s: %w", commit, registry.RedactRemote(remote), readErr)
	}
	if waitErr != nil {
		return nil, fmt.Errorf("git archive %s: %v: %s", treeish, waitErr, strings.TrimSpace(registry.RedactAll(stderr.String())))
	}
	return files, nil
}

func orRoot(dir string) string {
	if dir == "" {
		return "the root"
	}
	return dir
}

// readTar reads the archive git wrote of the folder dir, within limits; its
// errors name paths in the repository.
func readTar(r io.Reader, dir string, limits Limits) ([]File, error) {
	at := func(name string) string { return printable.String(path.Join(dir, name)) }
	tr := tar.NewReader(r)
	var files []File
	var total int64
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return files, nil
		}
		if err != nil {
			return nil, err
		}
		if h.Typeflag == tar.TypeXGlobalHeader {
			continue
		}
		name := strings.TrimSuffix(h.Name, "/")
		if !fs.ValidPath(name) || strings.Contains(name, "\\") {
			return nil, fmt.Errorf("%s is not a path inside %s", printable.String(name), orRoot(dir))
		}
		if len(files) >= limits.Files {
			return nil, fmt.Errorf("%s holds more than %d files and folders", orRoot(dir), limits.Files)
		}
		switch h.Typeflag {
		case tar.TypeDir:
			files = append(files, File{Path: name, Dir: true})
		case tar.TypeReg:
			if h.Size > limits.FileSize {
				return nil, fmt.Errorf("%s is larger than %d bytes", at(name), limits.FileSize)
			}
			if total += h.Size; total > limits.Bytes {
				return nil, fmt.Errorf("%s holds more than %d bytes", orRoot(dir), limits.Bytes)
			}
			data := make([]byte, h.Size)
			if _, err := io.ReadFull(tr, data); err != nil {
				return nil, err
			}
			files = append(files, File{Path: name, Executable: h.Mode&0o111 != 0, Data: data})
		case tar.TypeSymlink:
			return nil, fmt.Errorf("%s is a symlink (to %s); a skill carries files, not links", at(name), printable.String(h.Linkname))
		default:
			return nil, fmt.Errorf("%s is neither a file nor a folder", at(name))
		}
	}
}
