package workspacefs

import (
	"errors"
	"io/fs"
	"sync"
)

// ErrReadOnly is the error of every write through a ReadOnly system.
var ErrReadOnly = errors.New("refused: this run only reads")

// ReadOnly is a System whose workspaces can be read and never written: every
// write fails with ErrReadOnly before it reaches the disk, and is recorded.
// `reconcile --check` and `--diff` run on it, so they cannot write by construction.
type ReadOnly struct {
	Base System

	mu       sync.Mutex
	attempts []string
}

// NewReadOnly wraps base.
func NewReadOnly(base System) *ReadOnly { return &ReadOnly{Base: base} }

// Open opens root from the base system, for reading only.
func (s *ReadOnly) Open(root string) (FS, error) {
	f, err := s.Base.Open(root)
	if err != nil {
		return nil, err
	}
	return &hookedFS{base: f, check: s.refuseWrites}, nil
}

// MkdirAll refuses.
func (s *ReadOnly) MkdirAll(dir string, _ fs.FileMode) error {
	return pathError("mkdir", dir, s.refuseWrites("MkdirAll", true, dir))
}

func (s *ReadOnly) refuseWrites(op string, write bool, name string) error {
	if !write {
		return nil
	}
	s.mu.Lock()
	s.attempts = append(s.attempts, op+" "+name)
	s.mu.Unlock()
	return ErrReadOnly
}

// Attempts lists the writes refused so far, as "operation path".
func (s *ReadOnly) Attempts() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.attempts...)
}
