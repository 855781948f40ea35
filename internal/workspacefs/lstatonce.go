package workspacefs

import (
	"io/fs"
	"sync"
)

// LstatOnce wraps r so that each name is given to Lstat once and its answer
// kept. A pass that follows every input's way through its parent directories
// asks about the same few directories thousands of times, and each question
// walks the path from the root again. Use it for one read-only pass: what it
// answers is the disk as it was at the first question.
func LstatOnce(r FS) FS { return &lstatOnce{FS: r, seen: map[string]lstatAnswer{}} }

type lstatOnce struct {
	FS
	mu   sync.Mutex
	seen map[string]lstatAnswer
}

type lstatAnswer struct {
	info fs.FileInfo
	err  error
}

func (r *lstatOnce) Lstat(name string) (fs.FileInfo, error) {
	r.mu.Lock()
	a, ok := r.seen[name]
	r.mu.Unlock()
	if ok {
		return a.info, a.err
	}
	info, err := r.FS.Lstat(name)
	r.mu.Lock()
	r.seen[name] = lstatAnswer{info, err}
	r.mu.Unlock()
	return info, err
}
