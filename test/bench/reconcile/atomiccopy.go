//go:build linux

package main

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sync"

	"golang.org/x/sys/unix"
)

// These flags make the bench binary copy a skill tree the way any tool must that
// never leaves a torn file in a client's directory, then exit: a baseline of the
// cold run, run as a process of its own like the others. atomicCopyFlag copies
// the skills/ of a template of whole skill directories into each target;
// atomicCopyTreeFlag copies the generated tree of a workspace in sync, each
// target's skills/ into the same target.
const (
	atomicCopyFlag     = "-atomic-copy-from"
	atomicCopyTreeFlag = "-atomic-copy-tree"
)

// skillsCopy is a skills/ directory and where atomicCopy copies it.
type skillsCopy struct{ from, to string }

// templateCopies copies the skills/ of template into the three target
// directories.
func templateCopies(template string) []skillsCopy {
	var cs []skillsCopy
	for _, t := range generatedTree {
		cs = append(cs, skillsCopy{filepath.Join(template, "skills"), filepath.Join(t, "skills")})
	}
	return cs
}

// treeCopies copies the skills/ of each target directory of master into the
// same target; a target that holds anything else is refused, so that the copy
// never leaves out what cp -r copies.
func treeCopies(master string) ([]skillsCopy, error) {
	var cs []skillsCopy
	for _, t := range generatedTree {
		entries, err := os.ReadDir(filepath.Join(master, t))
		if err != nil {
			return nil, err
		}
		for _, e := range entries {
			if e.Name() != "skills" {
				return nil, fmt.Errorf("atomic copy: %s holds %s beside skills/, which it would leave out", filepath.Join(master, t), e.Name())
			}
		}
		cs = append(cs, skillsCopy{filepath.Join(master, t, "skills"), filepath.Join(t, "skills")})
	}
	return cs, nil
}

// atomicCopy copies every skill directory of copies into the current directory:
// each file is written under a temporary name beside its place and renamed into
// it, with its mode, and the copy ends with one syncfs, as skillsync syncs what
// it wrote. Skill directories are copied a few at a time, on as many goroutines
// as skillsync's writes use, so the baseline is what a tool writing this way
// could reach on this machine, not cp -r's one file after another.
func atomicCopy(copies []skillsCopy) error {
	type job struct{ from, to string }
	var jobs []job
	for _, c := range copies {
		skills, err := os.ReadDir(c.from)
		if err != nil {
			return err
		}
		if err := os.MkdirAll(c.to, 0o755); err != nil {
			return err
		}
		for _, s := range skills {
			jobs = append(jobs, job{filepath.Join(c.from, s.Name()), filepath.Join(c.to, s.Name())})
		}
	}
	errs := make(chan error, len(jobs))
	next := make(chan job)
	var wg sync.WaitGroup
	for range 2 * runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for j := range next {
				errs <- copyTreeAtomically(j.from, j.to)
			}
		})
	}
	for _, j := range jobs {
		next <- j
	}
	close(next)
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			return err
		}
	}
	dir, err := os.Open(".")
	if err != nil {
		return err
	}
	defer dir.Close()
	return unix.Syncfs(int(dir.Fd()))
}

func copyTreeAtomically(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		to := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.Mkdir(to, 0o755)
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		tmp := filepath.Join(filepath.Dir(to), ".tmp-"+filepath.Base(to))
		f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, info.Mode().Perm())
		if err != nil {
			return err
		}
		if _, err := f.Write(data); err != nil {
			f.Close()
			return err
		}
		if err := f.Close(); err != nil {
			return err
		}
		return os.Rename(tmp, to)
	})
}
