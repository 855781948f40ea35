package workspacefs

import (
	"io/fs"
	"path"
	"sync"
)

// Fault makes operations fail the way a disk or another process makes them fail,
// for tests: Op (an FS or Dir method name, such as "WriteNew", "Rename" or
// "ReadRegular"; empty for any) on a workspace-relative path matching Path (a
// path.Match pattern; empty for any) fails with Err. Before, when set, runs first:
// a test changes a file there between skillsync's read and its write. Times
// limits how often it strikes; 0 is every time.
type Fault struct {
	Op     string
	Path   string
	Err    error
	Before func(name string)
	Times  int
}

// Faulty is a System that injects Faults into its base, in place of immutable
// files, full tmpfs mounts and failing disks.
type Faulty struct {
	Base   System
	Faults []Fault

	mu     sync.Mutex
	struck []int
}

// Open opens root from the base system with the faults in place.
func (s *Faulty) Open(root string) (FS, error) {
	f, err := s.Base.Open(root)
	if err != nil {
		return nil, err
	}
	return &hookedFS{base: f, check: s.strike}, nil
}

// MkdirAll creates dir through the base system unless a fault strikes.
func (s *Faulty) MkdirAll(dir string, perm fs.FileMode) error {
	if err := s.strike("MkdirAll", true, dir); err != nil {
		return pathError("mkdir", dir, err)
	}
	return s.Base.MkdirAll(dir, perm)
}

func (s *Faulty) strike(op string, _ bool, name string) error {
	s.mu.Lock()
	if s.struck == nil {
		s.struck = make([]int, len(s.Faults))
	}
	var hit *Fault
	for i := range s.Faults {
		f := &s.Faults[i]
		if f.Op != "" && f.Op != op {
			continue
		}
		if ok, _ := path.Match(f.Path, name); f.Path != "" && !ok {
			continue
		}
		if f.Times > 0 && s.struck[i] >= f.Times {
			continue
		}
		s.struck[i]++
		hit = f
		break
	}
	s.mu.Unlock()
	if hit == nil {
		return nil
	}
	if hit.Before != nil {
		hit.Before(name)
	}
	return hit.Err
}
