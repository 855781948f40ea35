package registry

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"

	"github.com/skillsync/skillsync/internal/workspacefs"
)

// Source is one input file as it was read: its SHA-256 and size.
type Source struct {
	Sum  [32]byte
	Size int
}

// SourceOf describes data.
func SourceOf(data []byte) Source { return Source{Sum: sha256.Sum256(data), Size: len(data)} }

// ReadSource reads the input file name of reg again, for a record of what was
// applied. A file that no longer holds what reg was loaded from is ErrSourceChanged:
// what was applied came from bytes no longer there.
func ReadSource(reg *Registry, name string) ([]byte, error) {
	want, known := reg.Sources[name]
	if !known {
		return nil, fmt.Errorf("%s is not an input file of this workspace", name)
	}
	r, err := reg.System().Open(reg.Root)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	data, err := r.ReadFile(name, maxInputSize)
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, workspacefs.ErrNotRegular) {
		return nil, fmt.Errorf("%s: %w", name, ErrSourceChanged) // moved away or replaced since
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", name, workspacefs.Cause(err))
	}
	if SourceOf(data) != want {
		return nil, fmt.Errorf("%s: %w", name, ErrSourceChanged)
	}
	return data, nil
}

// ErrSourceChanged means an input file changed after it was loaded.
var ErrSourceChanged = errors.New("changed since it was loaded")

// ErrNoFolder is what a source's reader matches, with errors.Is, when the
// source's path names no folder of the commit or artifact: the workspace's
// mistake, not the source's failure.
var ErrNoFolder = errors.New("the source has no folder at its path")
