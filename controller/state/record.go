package state

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"path"
	"slices"
	"strconv"
	"sync"

	"github.com/skillsync/skillsync/desired/registry"
	"github.com/skillsync/skillsync/internal/banner"
	"github.com/skillsync/skillsync/internal/workspacefs"
)

// AppliedFile keeps the config and registry files as they were when the workspace
// was last reconciled from them, the way kubectl keeps last-applied-configuration:
// a later run compares against it to refuse a file cut off in the middle of a save.
// It lists each file's digest and size; AppliedDir keeps each file's bytes under
// its digest, so that recording a registry after one of its files changed writes
// that file and the list, not the whole registry again.
const (
	AppliedFile = Dir + "/last-applied.json"
	AppliedDir  = Dir + "/applied"
)

// MaxRecordSize is the largest record (or recorded file) read back, so that a huge
// file in its place costs an error, not the memory to hold it.
const MaxRecordSize = 256 << 20

// recordVersion is the version of the list; a record without one is of the first
// format, which held every file's bytes in the list.
const recordVersion = 2

type appliedRecord struct {
	Version int                        `json:"version,omitempty"`
	Files   map[string]json.RawMessage `json:"files"`
}

type recordedJSON struct {
	SHA256 string `json:"sha256"`
	Size   int    `json:"size"`
}

// Recorded is one file as recorded.
type Recorded struct {
	Sum  [32]byte
	Size int
}

// Applied is the record of the sources last applied.
type Applied struct {
	Files map[string]Recorded
	// inline holds the bytes of a record of the first format.
	inline map[string][]byte
}

// AppliedCache keeps the record last read, so that a watcher reading it at every
// pass parses it only when its bytes changed.
type AppliedCache struct {
	mu  sync.Mutex
	sum [32]byte
	a   *Applied
}

// ReadApplied returns the record of the sources last applied; nil when nothing
// was recorded yet.
func ReadApplied(r workspacefs.FS) (*Applied, error) { return ReadAppliedCached(r, nil) }

// ReadAppliedCached is ReadApplied taking from cache, when not nil, the record
// it holds for the same bytes, and leaving in it what it read.
func ReadAppliedCached(r workspacefs.FS, cache *AppliedCache) (*Applied, error) {
	data, err := r.ReadRegular(AppliedFile, MaxRecordSize)
	if err == nil && cache != nil {
		sum := sha256.Sum256(data)
		cache.mu.Lock()
		defer cache.mu.Unlock()
		if cache.a != nil && cache.sum == sum {
			return cache.a, nil
		}
		a, err := parseApplied(data, err)
		if err == nil {
			cache.sum, cache.a = sum, a
		}
		return a, err
	}
	return parseApplied(data, err)
}

// parseApplied is the record in data, as read with err.
func parseApplied(data []byte, err error) (*Applied, error) {
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	unreadable := func(why string) error {
		return registry.Problems{{Pos: registry.Position{File: AppliedFile}, Message: "cannot be read: " + why,
			Hint: "remove it; the next reconcile records the registry again"}}
	}
	if errors.Is(err, workspacefs.ErrNotRegular) || errors.Is(err, workspacefs.ErrTooLarge) {
		return nil, unreadable(workspacefs.Cause(err).Error())
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", AppliedFile, workspacefs.Cause(err))
	}
	var rec appliedRecord
	if err := json.Unmarshal(data, &rec); err != nil {
		return nil, unreadable(err.Error())
	}
	a := &Applied{Files: make(map[string]Recorded, len(rec.Files))}
	for name, raw := range rec.Files {
		if rec.Version < recordVersion {
			var inline []byte
			if err := json.Unmarshal(raw, &inline); err != nil {
				return nil, unreadable(fmt.Sprintf("%s: %v", name, err))
			}
			if a.inline == nil {
				a.inline = map[string][]byte{}
			}
			a.inline[name] = inline
			a.Files[name] = Recorded{Sum: sha256.Sum256(inline), Size: len(inline)}
			continue
		}
		var f recordedJSON
		err := json.Unmarshal(raw, &f)
		sum, hexErr := hex.DecodeString(f.SHA256)
		if err != nil || hexErr != nil || len(sum) != sha256.Size || f.Size < 0 {
			return nil, unreadable(fmt.Sprintf("%s is not recorded as a digest and a size", name))
		}
		a.Files[name] = Recorded{Sum: [32]byte(sum), Size: f.Size}
	}
	return a, nil
}

// Sums are the recorded digests, by file; nil without a record.
func (a *Applied) Sums() map[string][32]byte {
	if a == nil {
		return nil
	}
	sums := make(map[string][32]byte, len(a.Files))
	for name, f := range a.Files {
		sums[name] = f.Sum
	}
	return sums
}

// In is the record as registry.CutOff reads it, the bytes read through r.
func (a *Applied) In(r workspacefs.FS) registry.Recorded { return appliedIn{a, r} }

type appliedIn struct {
	a *Applied
	r workspacefs.FS
}

func (in appliedIn) Size(name string) (int, bool) {
	if in.a == nil {
		return 0, false
	}
	f, ok := in.a.Files[name]
	return f.Size, ok
}

func (in appliedIn) Bytes(name string) []byte { return in.a.bytes(in.r, name) }

// bytes are the recorded bytes of name; nil when they are not kept any more (the
// file under its digest was removed, or holds something else).
func (a *Applied) bytes(r workspacefs.FS, name string) []byte {
	if a == nil {
		return nil
	}
	f, ok := a.Files[name]
	if !ok {
		return nil
	}
	if data, ok := a.inline[name]; ok {
		return data
	}
	data, err := r.ReadRegular(blobPath(f.Sum), MaxRecordSize)
	if err != nil || sha256.Sum256(data) != f.Sum {
		return nil
	}
	return data
}

// blobPath is where the bytes of a recorded file with digest sum are kept.
func blobPath(sum [32]byte) string { return AppliedDir + "/" + hex.EncodeToString(sum[:]) }

// isBlobName says name is a name blobPath gives.
func isBlobName(name string) bool {
	sum, err := hex.DecodeString(name)
	return err == nil && len(sum) == sha256.Size && hex.EncodeToString(sum) == name
}

// writeApplied replaces the record with files: first the bytes of each file not
// kept yet, which content gives, then the list, atomically, then the bytes no file
// of the list has any more. A file whose content is nil is left out. It returns
// the digest of the list, and leaves what it wrote in cache, when not nil.
func writeApplied(r workspacefs.FS, files map[string]Recorded, content func(name string) ([]byte, error), cache *AppliedCache) ([32]byte, error) {
	var sum [32]byte
	if err := Make(r); err != nil {
		return sum, err
	}
	if info, err := r.Lstat(AppliedDir); err == nil && !info.IsDir() {
		return sum, fmt.Errorf("%s is a symlink or a file, not a directory, so the record of what was applied is not kept: remove it, and the next run makes the folder again", AppliedDir)
	}
	if err := r.MkdirAll(AppliedDir, 0o755); err != nil {
		return sum, fmt.Errorf("create %s: %w", AppliedDir, workspacefs.Cause(err))
	}
	dir, err := r.OpenDir(AppliedDir)
	var entries []workspacefs.Entry
	if err == nil {
		defer dir.Close()
		entries, err = dir.Entries()
	}
	if err != nil {
		return sum, fmt.Errorf("read %s: %w", AppliedDir, workspacefs.Cause(err))
	}
	kept := map[string]bool{}
	for _, e := range entries {
		switch {
		case e.Type.IsRegular() && isBlobName(e.Name):
			kept[e.Name] = true
		case e.Type.IsRegular() && banner.IsTempName(e.Name):
			r.Remove(path.Join(AppliedDir, e.Name)) // what a killed run left
		}
	}
	listed := map[string]bool{}
	list := fmt.Appendf(nil, `{"version":%d,"files":{`, recordVersion)
	for _, name := range slices.Sorted(maps.Keys(files)) {
		f := files[name]
		blob := path.Base(blobPath(f.Sum))
		if kept[blob] && !listed[blob] {
			// Kept bytes of another size were cut short (a crash before they reached
			// the disk): they are written again.
			if st, err := dir.Stamp(blob); err != nil || st.Valid && st.Size != int64(f.Size) {
				kept[blob] = false
			}
		}
		if !kept[blob] && !listed[blob] {
			data, err := content(name)
			if err != nil {
				return sum, err
			}
			if data == nil {
				continue
			}
			if sha256.Sum256(data) != f.Sum || len(data) != f.Size {
				return sum, fmt.Errorf("record %s: %w", name, registry.ErrSourceChanged)
			}
			if err := replaceFile(r, blobPath(f.Sum), data); err != nil {
				return sum, err
			}
		}
		listed[blob] = true
		key, err := json.Marshal(name)
		if err != nil {
			return sum, err
		}
		if list[len(list)-1] != '{' {
			list = append(list, ',')
		}
		list = append(append(list, key...), `:{"sha256":"`...)
		list = strconv.AppendInt(append(append(list, blob...), `","size":`...), int64(f.Size), 10)
		list = append(list, '}')
	}
	list = append(list, "}}\n"...)
	if err := replaceFile(r, AppliedFile, list); err != nil {
		return sum, err
	}
	for blob := range kept {
		if !listed[blob] {
			r.Remove(path.Join(AppliedDir, blob))
		}
	}
	sum = sha256.Sum256(list)
	if cache != nil {
		written := &Applied{Files: make(map[string]Recorded, len(files))}
		for name, f := range files {
			if listed[path.Base(blobPath(f.Sum))] {
				written.Files[name] = f
			}
		}
		cache.mu.Lock()
		cache.sum, cache.a = sum, written
		cache.mu.Unlock()
	}
	return sum, nil
}
