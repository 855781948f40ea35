package git

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/skillsync/skillsync/desired/registry"
	"github.com/skillsync/skillsync/internal/printable"
	"github.com/skillsync/skillsync/internal/workspacefs"
)

// Cache is the bare repositories skillsync fetches into, one per remote, under
// Dir (the user's cache directory, so that every workspace of the user shares
// what one fetched; empty when there is none, and then nothing is fetched or
// read).
type Cache struct {
	Dir string
	// Offline forbids the network: a ref is not resolved, and a commit the cache
	// does not hold is an error that names it.
	Offline bool
	// Env is added to git's environment.
	Env []string
	// MaxFetch bounds what one fetch may add to the cache, in bytes; 0 is
	// DefaultMaxFetch.
	MaxFetch int64
}

// DefaultMaxFetch is what one fetch may add to the cache: a commit arrives
// whole, its tree compressed, whatever of it a source reads, so that a hostile
// or mistaken repository cannot fill the disk before a limit of its files
// (Limits) refuses it.
const DefaultMaxFetch = 1 << 30

// ErrOffline is what an operation that needs the network returns offline.
var ErrOffline = errors.New("offline")

// errNoCache is the error of a Cache without a directory.
var errNoCache = errors.New("there is no user cache directory to keep sources in (set HOME, or XDG_CACHE_HOME on Linux)")

// commitID is a full object name: SHA-1, or SHA-256 in a repository using it.
var commitID = regexp.MustCompile(`^([0-9a-f]{40}|[0-9a-f]{64})$`)

// IsCommit tells whether ref is a full commit id, which names one tree forever.
func IsCommit(ref string) bool { return commitID.MatchString(ref) }

// repo is the bare repository of remote in the cache: named by a digest of the
// remote as written, so no remote can choose where it lands.
func (c Cache) repo(remote string) string {
	sum := sha256.Sum256([]byte(remote))
	return filepath.Join(c.Dir, hex.EncodeToString(sum[:12])+".git")
}

// Resolve is the commit ref names in remote now: a tag (an annotated one
// peeled to its commit) before a branch, as git orders them, or the remote's
// default branch when ref is empty. A full commit id is its own answer, and
// needs no network.
func (c Cache) Resolve(ctx context.Context, remote, ref string) (string, error) {
	if err := registry.CheckGitRemote(remote); err != nil {
		return "", err
	}
	if IsCommit(ref) {
		return ref, nil
	}
	if c.Offline {
		return "", fmt.Errorf("resolve %q of %s: %w: only a full commit id resolves without the network", ref, registry.RedactRemote(remote), ErrOffline)
	}
	args := []string{"ls-remote", "--", remote}
	if ref == "" {
		args = append(args, "HEAD")
	} else {
		args = append(args, ref, ref+"^{}")
	}
	out, err := c.git(ctx, "", args...)
	if err != nil {
		return "", fmt.Errorf("resolve %q of %s: %w", ref, registry.RedactRemote(remote), err)
	}
	refs := map[string]string{}
	for _, line := range strings.Split(string(out), "\n") {
		id, name, ok := strings.Cut(line, "\t")
		if ok && IsCommit(id) {
			refs[name] = id
		}
	}
	want := []string{"HEAD"}
	if ref != "" {
		want = []string{
			"refs/tags/" + ref + "^{}", "refs/tags/" + ref,
			"refs/heads/" + ref,
			ref + "^{}", ref,
		}
	}
	for _, name := range want {
		if id, ok := refs[name]; ok {
			return id, nil
		}
	}
	if ref == "" {
		return "", fmt.Errorf("resolve the default branch of %s: the remote has none; name a ref", registry.RedactRemote(remote))
	}
	return "", fmt.Errorf("resolve %q of %s: no tag or branch of that name", ref, registry.RedactRemote(remote))
}

// Fetch makes sure the cache holds commit of remote, fetching it alone (depth
// 1) when it does not. A commit already in the cache costs no network.
func (c Cache) Fetch(ctx context.Context, remote, commit string) error {
	if err := registry.CheckGitRemote(remote); err != nil {
		return err
	}
	if !IsCommit(commit) {
		return fmt.Errorf("fetch %s: %q is not a full commit id", registry.RedactRemote(remote), commit)
	}
	if c.Dir == "" {
		return errNoCache
	}
	repo := c.repo(remote)
	if c.has(ctx, repo, commit) {
		return nil
	}
	if c.Offline {
		return fmt.Errorf("commit %s of %s is not in the cache (%s): %w; run once with the network", commit, registry.RedactRemote(remote), c.Dir, ErrOffline)
	}
	unlock, err := c.lockRepo(ctx, remote)
	if err != nil {
		return err
	}
	defer unlock()
	// Another process may have fetched it while this one waited.
	if c.has(ctx, repo, commit) {
		return nil
	}
	if _, err := c.git(ctx, "", "init", "--quiet", "--bare", repo); err != nil {
		return fmt.Errorf("make the cache repository of %s: %w", registry.RedactRemote(remote), err)
	}
	// No automatic gc: the commits are kept under refs of their own. A fetch
	// keeps what it brings as one pack, whose size bounded tells what it added.
	for _, setting := range [][2]string{{"gc.auto", "0"}, {"fetch.unpackLimit", "1"}} {
		if _, err := c.git(ctx, repo, "config", setting[0], setting[1]); err != nil {
			return fmt.Errorf("configure the cache repository of %s: %w", registry.RedactRemote(remote), err)
		}
	}
	return c.fetchBounded(ctx, repo, remote, commit)
}

// errFetchTooLarge is the cause of a fetch stopped for its size.
var errFetchTooLarge = errors.New("too large")

// fetchBounded fetches commit of remote into repo, which the caller holds the
// lock of, stopping a fetch whose pack grows past the bound; a fetch stopped,
// or one that added more than the bound all the same (too fast to be seen
// growing), takes the repository with it: what else it held is fetched again
// when needed.
func (c Cache) fetchBounded(ctx context.Context, repo, remote, commit string) error {
	limit := c.MaxFetch
	if limit <= 0 {
		limit = DefaultMaxFetch
	}
	cache, err := (workspacefs.OS{}).Open(c.Dir)
	if err != nil {
		return fmt.Errorf("open the cache directory: %w", err)
	}
	defer cache.Close()
	packs := path.Join(filepath.Base(repo), "objects", "pack")
	before := packsSize(cache, packs, "")
	fetching, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case <-fetching.Done():
				return
			case <-time.After(20 * time.Millisecond):
				if packsSize(cache, packs, "tmp_pack_") > limit {
					stop(errFetchTooLarge)
					return
				}
			}
		}
	}()
	_, err = c.git(fetching, repo, "fetch", "--quiet", "--no-tags", "--no-write-fetch-head", "--depth", "1", "--",
		remote, "+"+commit+":refs/skillsync/"+commit)
	stop(nil)
	<-done
	tooLarge := errors.Is(context.Cause(fetching), errFetchTooLarge) || err == nil && packsSize(cache, packs, "")-before > limit
	if tooLarge {
		// git's own children (index-pack) may write for a moment after git is
		// stopped, until they read that it is gone.
		rmErr := removeTree(cache, filepath.Base(repo))
		for wait := 0; rmErr != nil && wait < 20; wait++ {
			time.Sleep(50 * time.Millisecond)
			rmErr = removeTree(cache, filepath.Base(repo))
		}
		if rmErr != nil {
			return fmt.Errorf("fetch commit %s of %s: it passed %d bytes, and the cache repository %s could not be removed: %w", commit, registry.RedactRemote(remote), limit, repo, rmErr)
		}
		return fmt.Errorf("fetch commit %s of %s: it passed %d bytes, at most what one fetch may add to the cache; nothing of it is kept", commit, registry.RedactRemote(remote), limit)
	}
	if err != nil {
		return fmt.Errorf("fetch commit %s of %s: %w", commit, registry.RedactRemote(remote), err)
	}
	return nil
}

// packsSize is the size of the files in the pack directory packs of cache
// whose names begin with prefix.
func packsSize(cache workspacefs.FS, packs, prefix string) int64 {
	entries, _ := cache.ReadDir(packs)
	var total int64
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), prefix) {
			continue
		}
		if info, err := e.Info(); err == nil {
			total += info.Size()
		}
	}
	return total
}

// lockRepo takes the lock of remote's repository in the cache, waiting for
// another process that holds it as long as ctx allows: git's own locks make a
// second init, config or shallow fetch of one repository fail rather than
// wait. It returns what lets the lock go.
func (c Cache) lockRepo(ctx context.Context, remote string) (func(), error) {
	if err := (workspacefs.OS{}).MkdirAll(c.Dir, 0o755); err != nil {
		return nil, fmt.Errorf("make the cache directory: %w", err)
	}
	root, err := (workspacefs.OS{}).Open(c.Dir)
	if err != nil {
		return nil, fmt.Errorf("open the cache directory: %w", err)
	}
	defer root.Close()
	d, err := root.OpenDir(".")
	if err != nil {
		return nil, fmt.Errorf("open the cache directory: %w", workspacefs.Cause(err))
	}
	defer d.Close()
	f, err := d.OpenFile(filepath.Base(c.repo(remote))+".lock", os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("open the cache lock of %s: %w", registry.RedactRemote(remote), workspacefs.Cause(err))
	}
	for {
		err := workspacefs.TryLock(f)
		if err == nil {
			return func() { workspacefs.Unlock(f); f.Close() }, nil
		}
		if !errors.Is(err, workspacefs.ErrLockHeld) {
			f.Close()
			return nil, fmt.Errorf("lock the cache repository of %s: %w", registry.RedactRemote(remote), err)
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, fmt.Errorf("wait for another skillsync fetching %s: %w", registry.RedactRemote(remote), ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// CommitTime is when commit of remote was made, as its committer recorded it,
// the commit fetched into the cache first when it lacks it.
func (c Cache) CommitTime(ctx context.Context, remote, commit string) (time.Time, error) {
	if err := c.Fetch(ctx, remote, commit); err != nil {
		return time.Time{}, err
	}
	out, err := c.git(ctx, c.repo(remote), "show", "-s", "--format=%ct", commit+"^{commit}")
	if err != nil {
		return time.Time{}, fmt.Errorf("read the date of commit %s of %s: %w", commit, registry.RedactRemote(remote), err)
	}
	seconds, err := strconv.ParseInt(strings.TrimSpace(string(out)), 10, 64)
	if err != nil {
		return time.Time{}, fmt.Errorf("read the date of commit %s of %s: %q is no time", commit, registry.RedactRemote(remote), out)
	}
	return time.Unix(seconds, 0), nil
}

// has tells whether repo holds commit.
func (c Cache) has(ctx context.Context, repo, commit string) bool {
	_, err := c.git(ctx, repo, "cat-file", "-e", commit+"^{commit}")
	return err == nil
}

// git runs git in repo (none for ls-remote and init), never prompting, and
// returns its stdout, or an error with the end of its stderr, any credential in
// it redacted.
func (c Cache) git(ctx context.Context, repo string, args ...string) ([]byte, error) {
	sub := args[0]
	if repo != "" {
		args = append([]string{"--git-dir", repo}, args...)
	}
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Env = append(append(os.Environ(), "GIT_TERMINAL_PROMPT=0", "LC_ALL=C"), c.Env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(registry.RedactAll(stderr.String()))
		if len(msg) > 2048 {
			msg = "…" + msg[len(msg)-2048:]
		}
		if ctx.Err() != nil {
			return nil, fmt.Errorf("git %s: %w", sub, ctx.Err())
		}
		if msg == "" {
			return nil, fmt.Errorf("git %s: %v", sub, err)
		}
		return nil, fmt.Errorf("git %s: %s", sub, printable.String(msg))
	}
	return stdout.Bytes(), nil
}

// Tags are the names of the tags remote has now.
func (c Cache) Tags(ctx context.Context, remote string) ([]string, error) {
	if err := registry.CheckGitRemote(remote); err != nil {
		return nil, err
	}
	if c.Offline {
		return nil, fmt.Errorf("list the tags of %s: %w", registry.RedactRemote(remote), ErrOffline)
	}
	out, err := c.git(ctx, "", "ls-remote", "--tags", "--refs", "--", remote)
	if err != nil {
		return nil, fmt.Errorf("list the tags of %s: %w", registry.RedactRemote(remote), err)
	}
	var tags []string
	for line := range strings.SplitSeq(string(out), "\n") {
		if _, ref, ok := strings.Cut(line, "\t"); ok {
			if tag, ok := strings.CutPrefix(ref, "refs/tags/"); ok {
				tags = append(tags, tag)
			}
		}
	}
	return tags, nil
}

// removeTree removes the directory name of cache and everything in it,
// following no symlink.
func removeTree(cache workspacefs.FS, name string) error {
	entries, err := cache.ReadDir(name)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if e.IsDir() {
			err = removeTree(cache, path.Join(name, e.Name()))
		} else {
			err = cache.Remove(path.Join(name, e.Name()))
		}
		if err != nil {
			return err
		}
	}
	return cache.Remove(name)
}
