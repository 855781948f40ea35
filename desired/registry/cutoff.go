package registry

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/skillsync/skillsync/internal/workspacefs"
)

// CutOff reports every input file that is now a strict prefix of the version last
// applied. That is what an editor that truncates and rewrites in place, a crash in
// the middle of a save, or a full disk leaves behind, and such a file often still
// parses: it declares less than its author meant, and applying it would prune.
// A deliberate removal of a file's last lines looks the same, so it is refused too
// until the author accepts the shorter file.
func CutOff(applied map[string][]byte, now map[string]Source) Problems {
	var ps Problems
	for _, file := range sortedKeys(now) {
		cur, before := now[file], applied[file]
		if before == nil || cur.Size >= len(before) || SourceOf(before[:cur.Size]) != cur {
			continue
		}
		ps = append(ps, Problem{
			Pos: Position{File: file, Line: bytes.Count(before[:cur.Size], []byte("\n")) + 1},
			Message: fmt.Sprintf("the file ends here, after %d bytes, but the version last applied went on for %d more bytes and is otherwise the same; "+
				"it looks cut off in the middle of a save, so nothing was written or removed", cur.Size, len(before)-cur.Size),
			Hint: "finish the save; if you removed the end on purpose, run: skillsync accept " + file,
		})
	}
	return ps
}

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
	r, err := os.OpenRoot(reg.Root)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	data, err := workspacefs.ReadFile(r, name, maxInputSize)
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
