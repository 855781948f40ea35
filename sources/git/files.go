package git

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os/exec"
	"path"
	"strconv"
	"strings"

	"github.com/skillsync/skillsync/desired/registry"
	"github.com/skillsync/skillsync/internal/printable"
)

// File is one entry of a commit's folder, its path relative to it: a file, a
// folder, a symlink (Link) or a submodule (Submodule), whose bytes are not read.
type File struct {
	Path            string
	Dir             bool
	Link, Submodule bool
	Executable      bool
	Data            []byte
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

// Files lists the skill directories of the folder dir (the repository's root
// when empty) of commit of remote, from the cache, which must hold it (Fetch):
// each folder directly in dir that take says to read, or with take nil each
// that holds a SKILL.md, whole; and each file of dir that document says is a
// registry document (none when nil); nothing else of dir. It reads the tree as
// committed, object by object, so that no .gitattributes of the repository
// changes what is read (git archive would drop export-ignore files and expand
// export-subst). A symlink or a submodule is listed, not read, for the
// registry to refuse at its path; what is read is bounded by limits, checked
// before any file is read.
func (c Cache) Files(ctx context.Context, remote, commit, dir string, take func(skill string) bool, document func(path string) bool, limits Limits) ([]File, error) {
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
			return nil, noFolderError{fmt.Errorf("commit %s of %s has no folder %s", commit, registry.RedactRemote(remote), dir)}
		}
	}
	listing, err := c.git(ctx, repo, "ls-tree", "-r", "-t", "-l", "-z", treeish)
	if err != nil {
		return nil, fmt.Errorf("list %s of commit %s of %s: %w", orRoot(dir), commit, registry.RedactRemote(remote), err)
	}
	files, blobs, err := readListing(listing, dir, take, document, limits)
	if err != nil {
		return nil, fmt.Errorf("commit %s of %s: %w", commit, registry.RedactRemote(remote), err)
	}
	if err := c.readBlobs(ctx, repo, files, blobs); err != nil {
		return nil, fmt.Errorf("read %s of commit %s of %s: %w", orRoot(dir), commit, registry.RedactRemote(remote), err)
	}
	return files, nil
}

func orRoot(dir string) string {
	if dir == "" {
		return "the root"
	}
	return dir
}

// readListing reads what git ls-tree -r -t -l -z printed of the folder dir:
// every entry of the skill directories take says to read and every file
// document says is a registry document (see Files), within
// limits, and for each file the object to read into it (blobs[i] for files[i],
// "" for anything else). Its errors name paths in the repository.
func readListing(listing []byte, dir string, take, document func(string) bool, limits Limits) ([]File, []string, error) {
	at := func(name string) string { return printable.String(path.Join(dir, name)) }
	type entry struct {
		mode, typ, object, size, name string
	}
	var entries []entry
	skills := map[string]bool{} // top-level folders holding a SKILL.md
	for raw := range bytes.SplitSeq(bytes.TrimSuffix(listing, []byte{0}), []byte{0}) {
		meta, name, ok := strings.Cut(string(raw), "\t")
		fields := strings.Fields(meta)
		if !ok || len(fields) != 4 {
			return nil, nil, fmt.Errorf("git ls-tree printed %q", printable.String(string(raw)))
		}
		e := entry{fields[0], fields[1], fields[2], fields[3], name}
		if top, rest, nested := strings.Cut(name, "/"); nested && rest == "SKILL.md" && e.typ == "blob" {
			skills[top] = true
		}
		entries = append(entries, e)
	}
	if take == nil {
		take = func(top string) bool { return skills[top] }
	}
	var files []File
	var blobs []string
	var total int64
	for _, e := range entries {
		top, _, nested := strings.Cut(e.name, "/")
		isDocument := document != nil && e.typ == "blob" && document(e.name)
		if !isDocument && (!take(top) || (!nested && e.typ != "tree")) {
			continue
		}
		if !registry.ValidSourcePath(e.name) {
			return nil, nil, fmt.Errorf("%q is not a path inside %s that prints as itself", e.name, orRoot(dir))
		}
		if len(files) >= limits.Files {
			return nil, nil, fmt.Errorf("the skill directories of %s hold more than %d files and folders", orRoot(dir), limits.Files)
		}
		f, object := File{Path: e.name}, ""
		switch {
		case e.typ == "tree":
			f.Dir = true
		case e.mode == "120000":
			f.Link = true
		case e.typ == "blob" && (e.mode == "100644" || e.mode == "100755"):
			n, err := strconv.ParseInt(e.size, 10, 64)
			if err != nil {
				return nil, nil, fmt.Errorf("git ls-tree printed the size %q for %s", e.size, at(e.name))
			}
			if n > limits.FileSize {
				return nil, nil, fmt.Errorf("%s is larger than %d bytes", at(e.name), limits.FileSize)
			}
			if total += n; total > limits.Bytes {
				return nil, nil, fmt.Errorf("the skill directories of %s hold more than %d bytes", orRoot(dir), limits.Bytes)
			}
			f.Executable, f.Data, object = e.mode == "100755", make([]byte, 0, n), e.object
		default:
			f.Submodule = true
		}
		files, blobs = append(files, f), append(blobs, object)
	}
	return files, blobs, nil
}

// readBlobs fills each file of files from its object, blobs[i], through one
// git cat-file --batch; each must be the size the listing gave.
func (c Cache) readBlobs(ctx context.Context, repo string, files []File, blobs []string) error {
	cmd := exec.CommandContext(ctx, "git", "--git-dir", repo, "cat-file", "--batch")
	cmd.Env = append(append(cmd.Environ(), "GIT_TERMINAL_PROMPT=0", "LC_ALL=C"), c.Env...)
	var want strings.Builder
	for _, b := range blobs {
		if b != "" {
			want.WriteString(b + "\n")
		}
	}
	cmd.Stdin = strings.NewReader(want.String())
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("git cat-file: %w", err)
	}
	readErr := readBatch(bufio.NewReader(stdout), files, blobs)
	if readErr != nil {
		cmd.Process.Kill()
	}
	waitErr := cmd.Wait()
	if readErr != nil {
		return readErr
	}
	if waitErr != nil {
		return fmt.Errorf("git cat-file: %v: %s", waitErr, strings.TrimSpace(registry.RedactAll(stderr.String())))
	}
	return nil
}

// readBatch reads git cat-file --batch's answer for each blob in turn.
func readBatch(r *bufio.Reader, files []File, blobs []string) error {
	for i, b := range blobs {
		if b == "" {
			continue
		}
		header, err := r.ReadString('\n')
		if err != nil {
			return fmt.Errorf("git cat-file ended before %s: %w", files[i].Path, err)
		}
		fields := strings.Fields(header)
		if len(fields) != 3 || fields[0] != b || fields[1] != "blob" || fields[2] != strconv.Itoa(cap(files[i].Data)) {
			return fmt.Errorf("git cat-file answered %q for %s, object %s of %d bytes", strings.TrimSpace(header), files[i].Path, b, cap(files[i].Data))
		}
		files[i].Data = files[i].Data[:cap(files[i].Data)]
		if _, err := io.ReadFull(r, files[i].Data); err != nil {
			return fmt.Errorf("read %s: %w", files[i].Path, err)
		}
		if nl, err := r.ReadByte(); err != nil || nl != '\n' {
			return fmt.Errorf("git cat-file: no newline after %s", files[i].Path)
		}
	}
	return nil
}

// noFolderError is a path that names no folder of the commit: errors.Is
// matches registry.ErrNoFolder.
type noFolderError struct{ error }

func (noFolderError) Is(target error) bool { return target == registry.ErrNoFolder }
