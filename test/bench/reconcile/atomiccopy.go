//go:build linux

package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sync"

	"golang.org/x/sys/unix"
)

// atomicCopyFlag makes the bench binary copy a skill tree the way any tool must
// that never leaves a torn file in a client's directory, then exit: the second
// baseline of the cold run, run as a process of its own like the others.
const atomicCopyFlag = "-atomic-copy-from"

// atomicCopy copies the skills/ of template into the three target directories
// of the current directory: each file is written under a temporary name beside
// its place and renamed into it, with its mode, and the copy ends with one
// syncfs, as skillsync syncs what it wrote. Skill directories are copied a few
// at a time, on as many goroutines as skillsync's writes use, so the baseline
// is what a tool writing this way could reach on this machine, not cp -r's one
// file after another.
func atomicCopy(template string) error {
	src := filepath.Join(template, "skills")
	skills, err := os.ReadDir(src)
	if err != nil {
		return err
	}
	type job struct{ from, to string }
	var jobs []job
	for _, t := range generatedTree {
		if err := os.MkdirAll(filepath.Join(t, "skills"), 0o755); err != nil {
			return err
		}
		for _, s := range skills {
			jobs = append(jobs, job{filepath.Join(src, s.Name()), filepath.Join(t, "skills", s.Name())})
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
