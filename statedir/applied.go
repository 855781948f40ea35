package statedir

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/skillsync/skillsync/desired/registry"
	"github.com/skillsync/skillsync/internal/workspacefs"
)

// AppliedFile keeps the config and registry files as they were when the workspace
// was last reconciled from them, the way kubectl keeps last-applied-configuration:
// a later run compares against it to refuse a file cut off in the middle of a save.
const AppliedFile = Dir + "/last-applied.json"

// MaxRecordSize is the largest record read back, so that a huge file in its
// place costs an error, not the memory to hold it.
const MaxRecordSize = 256 << 20

type appliedRecord struct {
	Files map[string][]byte `json:"files"`
}

// ReadApplied returns the recorded sources; nil when nothing was recorded yet.
func ReadApplied(r workspacefs.FS) (map[string][]byte, error) {
	data, err := r.ReadRegular(AppliedFile, MaxRecordSize)
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
	return rec.Files, nil
}

// writeApplied replaces the record atomically with the files named, as read gives
// them: the JSON of an appliedRecord, written one file at a time, so a registry of
// megabytes is never held whole to record it. It returns the record's digest.
func writeApplied(r workspacefs.FS, names []string, read func(name string) ([]byte, error)) ([32]byte, error) {
	var sum [32]byte
	if err := Make(r); err != nil {
		return sum, err
	}
	h := sha256.New()
	err := replaceFileWith(r, AppliedFile, func(out io.Writer) error {
		w := io.MultiWriter(out, h)
		io.WriteString(w, `{"files":{`)
		for i, name := range names {
			data, err := read(name)
			if err != nil {
				return err
			}
			key, err := json.Marshal(name)
			if err != nil {
				return err
			}
			if i > 0 {
				io.WriteString(w, ",")
			}
			w.Write(key)
			io.WriteString(w, `:"`)
			// encoding/json writes a []byte as standard base64, which is what
			// ReadApplied decodes.
			encoder := base64.NewEncoder(base64.StdEncoding, w)
			encoder.Write(data)
			encoder.Close()
			io.WriteString(w, `"`)
		}
		_, err := io.WriteString(w, "}}\n")
		return err
	})
	h.Sum(sum[:0])
	return sum, err
}

// Sums keeps what a comparison with the record needs: a digest per file, not the
// bytes (a registry of thousands of capabilities is megabytes).
func Sums(files map[string][]byte) map[string][32]byte {
	sums := make(map[string][32]byte, len(files))
	for f, data := range files {
		sums[f] = sha256.Sum256(data)
	}
	return sums
}

// Record records the sources reg was loaded from as the last applied, and returns
// the digest of what it wrote. Call it under the workspace lock: a temp file in
// .skillsync/ is then what a killed run left, and goes first. A source saved again
// since it was loaded is not what was applied: then nothing is recorded (a zero
// digest), and the next pass, which applies the new version, records it.
func Record(sys workspacefs.System, reg *registry.Registry) ([32]byte, error) {
	r, err := sys.Open(reg.Root)
	if err != nil {
		return [32]byte{}, err
	}
	defer r.Close()
	removeTemps(r)
	sum, err := writeApplied(r, slices.Sorted(maps.Keys(reg.Sources)), func(name string) ([]byte, error) { return registry.ReadSource(reg, name) })
	if errors.Is(err, registry.ErrSourceChanged) {
		return [32]byte{}, nil
	}
	return sum, err
}

// Accept records files, as they are now, as the versions last applied, so a run no
// longer takes their shorter content for a save that was cut off. It needs no lock:
// it changes only the record, which a reconcile replaces after it applies.
func Accept(sys workspacefs.System, root string, files []string) ([]string, error) {
	reg, err := registry.LoadFrom(sys, root)
	if reg == nil {
		return nil, err
	}
	// Other problems in the inputs do not matter here: accepting a file says only
	// that its present content is what its author meant.
	var problems registry.Problems
	r, err := sys.Open(reg.Root)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	if err := Check(r); err != nil {
		return nil, err
	}
	record, err := ReadApplied(r)
	if errors.As(err, &problems) {
		record = nil // a record that cannot be read is replaced
	} else if err != nil {
		return nil, err
	}
	if record == nil {
		record = map[string][]byte{}
	}
	var accepted []string
	for _, f := range files {
		rel, ok := sourceName(reg, f)
		if !ok {
			return nil, registry.Problems{{Pos: registry.Position{File: f}, Message: "is not the config or a registry file of this workspace",
				Hint: "accept takes the file a cut-off error names, such as " + registry.ConfigName}}
		}
		accepted = append(accepted, rel)
	}
	for _, name := range accepted {
		data, err := registry.ReadSource(reg, name)
		if err != nil {
			return nil, fmt.Errorf("%w; run accept again once the file is saved", err)
		}
		record[name] = data
	}
	_, err = writeApplied(r, slices.Sorted(maps.Keys(record)), func(name string) ([]byte, error) { return record[name], nil })
	return accepted, err
}

// sourceName finds the input file arg names: relative to the workspace root, as
// errors print it, or a path from the current directory.
func sourceName(reg *registry.Registry, arg string) (string, bool) {
	candidates := []string{path.Clean(filepath.ToSlash(arg))}
	if abs, err := filepath.Abs(arg); err == nil {
		if real, err := workspacefs.RealPath(filepath.Dir(abs)); err == nil {
			abs = filepath.Join(real, filepath.Base(abs))
		}
		if rel, err := filepath.Rel(reg.Root, abs); err == nil && !strings.HasPrefix(rel, "..") {
			candidates = append(candidates, filepath.ToSlash(rel))
		}
	}
	for _, c := range candidates {
		if _, ok := reg.Sources[c]; ok {
			return c, true
		}
	}
	return "", false
}
