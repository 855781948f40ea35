package state

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"maps"
	"path"
	"path/filepath"
	"strings"

	"github.com/skillsync/skillsync/desired/registry"
	"github.com/skillsync/skillsync/internal/workspacefs"
)

// Record records the sources reg was loaded from as the last applied, and returns
// the digest of what it wrote. Call it under the workspace lock: a temp file in
// .skillsync/ is then what a killed run left, and goes first. A source saved again
// since it was loaded is not what was applied: then nothing is recorded (a zero
// digest), and the next pass, which applies the new version, records it.
func Record(sys workspacefs.System, reg *registry.Registry) ([32]byte, error) {
	return RecordCached(sys, reg, nil)
}

// RecordCached is Record leaving what it wrote in cache, when not nil, for the
// next ReadAppliedCached.
func RecordCached(sys workspacefs.System, reg *registry.Registry, cache *AppliedCache) ([32]byte, error) {
	r, err := sys.Open(reg.Root)
	if err != nil {
		return [32]byte{}, err
	}
	defer r.Close()
	removeTemps(r)
	files := make(map[string]Recorded, len(reg.Sources))
	for name, src := range reg.Sources {
		files[name] = Recorded{Sum: src.Sum, Size: src.Size}
	}
	sum, err := writeApplied(r, files, func(name string) ([]byte, error) { return registry.ReadSource(reg, name) }, cache)
	if errors.Is(err, registry.ErrSourceChanged) {
		return [32]byte{}, nil
	}
	return sum, err
}

// Accept records files, as they are now, as the versions last applied, so a run no
// longer takes their shorter content for a save that was cut off. It needs no lock:
// it changes only the record, which a reconcile replaces after it applies.
func Accept(sys workspacefs.System, root, config string, files []string) ([]string, error) {
	reg, err := registry.LoadConfig(sys, root, config, nil)
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
	recorded := map[string]Recorded{}
	if record != nil {
		maps.Copy(recorded, record.Files)
	}
	content := map[string][]byte{}
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
		recorded[name], content[name] = Recorded{Sum: sha256.Sum256(data), Size: len(data)}, data
	}
	_, err = writeApplied(r, recorded, func(name string) ([]byte, error) {
		if data, ok := content[name]; ok {
			return data, nil
		}
		return record.bytes(r, name), nil // nil, and left out, when no longer kept
	}, nil)
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
