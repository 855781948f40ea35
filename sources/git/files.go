package git

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"io/fs"
	"os/exec"
	"path"
	"strconv"
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
// remote, from the cache, which must hold it (Fetch): the tree as committed,
// read object by object, so that no .gitattributes of the repository changes
// what is read (git archive would drop export-ignore files and expand
// export-subst). A symlink, a submodule, or anything else that is no file or
// folder is refused at its path, as the registry refuses it in a skill
// directory, and so is a folder beyond limits, before any file is read.
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
	listing, err := c.git(ctx, repo, "ls-tree", "-r", "-t", "-l", "-z", treeish)
	if err != nil {
		return nil, fmt.Errorf("list %s of commit %s of %s: %w", orRoot(dir), commit, registry.RedactRemote(remote), err)
	}
	files, blobs, err := readListing(listing, dir, limits)
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
// every file and folder, within limits, and for each file the object to read
// into it (blobs[i] for files[i], "" for a folder). Its errors name paths in
// the repository.
func readListing(listing []byte, dir string, limits Limits) ([]File, []string, error) {
	at := func(name string) string { return printable.String(path.Join(dir, name)) }
	var files []File
	var blobs []string
	var total int64
	for entry := range bytes.SplitSeq(bytes.TrimSuffix(listing, []byte{0}), []byte{0}) {
		meta, name, ok := strings.Cut(string(entry), "\t")
		fields := strings.Fields(meta)
		if !ok || len(fields) != 4 {
			return nil, nil, fmt.Errorf("git ls-tree printed %q", printable.String(string(entry)))
		}
		mode, typ, object, size := fields[0], fields[1], fields[2], fields[3]
		if !fs.ValidPath(name) || strings.Contains(name, "\\") {
			return nil, nil, fmt.Errorf("%s is not a path inside %s", printable.String(name), orRoot(dir))
		}
		if len(files) >= limits.Files {
			return nil, nil, fmt.Errorf("%s holds more than %d files and folders", orRoot(dir), limits.Files)
		}
		switch {
		case typ == "tree":
			files, blobs = append(files, File{Path: name, Dir: true}), append(blobs, "")
		case mode == "160000":
			return nil, nil, fmt.Errorf("%s is a submodule; a skill carries files, not other repositories", at(name))
		case mode == "120000":
			return nil, nil, fmt.Errorf("%s is a symlink; a skill carries files, not links", at(name))
		case typ == "blob" && (mode == "100644" || mode == "100755"):
			n, err := strconv.ParseInt(size, 10, 64)
			if err != nil {
				return nil, nil, fmt.Errorf("git ls-tree printed the size %q for %s", size, at(name))
			}
			if n > limits.FileSize {
				return nil, nil, fmt.Errorf("%s is larger than %d bytes", at(name), limits.FileSize)
			}
			if total += n; total > limits.Bytes {
				return nil, nil, fmt.Errorf("%s holds more than %d bytes", orRoot(dir), limits.Bytes)
			}
			files, blobs = append(files, File{Path: name, Executable: mode == "100755", Data: make([]byte, 0, n)}), append(blobs, object)
		default:
			return nil, nil, fmt.Errorf("%s is neither a file nor a folder (mode %s)", at(name), mode)
		}
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
