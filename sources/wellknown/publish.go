package wellknown

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"path"
	"slices"
	"strings"

	"github.com/skillsync/skillsync/desired/registry"
	"github.com/skillsync/skillsync/internal/workspacefs"
	"github.com/skillsync/skillsync/sources/archive"
	"github.com/skillsync/skillsync/sources/blobs"
)

// IndexPath is where a site serves its index, relative to its root.
const IndexPath = ".well-known/agent-skills/index.json"

// generator marks an index skillsync published, so that publishing again
// replaces it and the artifacts it names, and nothing else. Clients ignore
// fields they do not know.
const generator = "skillsync"

// publishedIndex is the index Publish writes.
type publishedIndex struct {
	Schema    string  `json:"$schema"`
	Generator string  `json:"generator"`
	Skills    []Entry `json:"skills"`
}

// Artifacts are the files of a published site, by path relative to its root:
// the index and each skill's artifact, a skill-md for a SKILL.md alone, else a
// .tar.gz of the directory, with URLs relative to the index so that the site
// can be served from any origin. The same skills give the same bytes.
func Artifacts(skills []archive.SkillDir) (map[string][]byte, error) {
	skills = slices.Clone(skills)
	slices.SortFunc(skills, func(a, b archive.SkillDir) int { return strings.Compare(a.Name, b.Name) })
	out := map[string][]byte{}
	ix := publishedIndex{Schema: SchemaV020, Generator: generator, Skills: []Entry{}}
	base := path.Dir(IndexPath)
	for _, s := range skills {
		e := Entry{Name: s.Name, Description: s.Description}
		var data []byte
		if len(s.Files) == 0 {
			e.Type, e.URL, data = registry.ArtifactSkillMD, s.Name+"/SKILL.md", s.SkillMD
		} else {
			var err error
			if data, err = archive.TarGz(s.All(), ""); err != nil {
				return nil, fmt.Errorf("skill %s: %w", s.Name, err)
			}
			e.Type, e.URL = registry.ArtifactArchive, s.Name+".tar.gz"
		}
		e.Digest = blobs.Digest(data)
		out[path.Join(base, e.URL)] = data
		ix.Skills = append(ix.Skills, e)
	}
	data, err := json.MarshalIndent(ix, "", "  ")
	if err != nil {
		return nil, err
	}
	out[IndexPath] = append(data, '\n')
	return out, nil
}

// Publish writes the site of skills into dir (made if missing): the index and
// each artifact, every file written whole under a temporary name and renamed
// into place. An index already there is replaced only if skillsync published
// it, and an artifact only if that index named it and it still holds what the
// index records: a file of the site that skillsync did not write, or that
// someone edited since, is kept, and is an error. It returns the paths
// written, relative to dir.
func Publish(sys workspacefs.System, dir string, skills []archive.SkillDir) ([]string, error) {
	files, err := Artifacts(skills)
	if err != nil {
		return nil, err
	}
	if err := sys.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	root, err := sys.Open(dir)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	ours, err := publishedBefore(root)
	if err != nil {
		return nil, err
	}
	paths := slices.Sorted(maps.Keys(files))
	for _, p := range paths {
		digest, published := ours[p]
		_, err := root.Lstat(p)
		switch {
		case errors.Is(err, fs.ErrNotExist):
		case err != nil:
			return nil, fmt.Errorf("%s: %w", p, workspacefs.Cause(err))
		case !published:
			return nil, fmt.Errorf("%s is there and skillsync did not publish it; kept, and nothing was written (publish into another directory, or remove it)", p)
		case digest != "":
			if data, err := root.ReadRegular(p, archive.MaxSize); err != nil || blobs.Digest(data) != digest {
				return nil, fmt.Errorf("%s was edited since skillsync published it (it is not what its index records); kept, and nothing was written (publish into another directory, or put back or remove it)", p)
			}
		}
	}
	// The artifacts first, the index last: a site read midway names nothing
	// that is not there yet.
	slices.SortStableFunc(paths, func(a, b string) int {
		switch {
		case a == IndexPath:
			return 1
		case b == IndexPath:
			return -1
		}
		return 0
	})
	for _, p := range paths {
		if err := workspacefs.WriteWhole(root, p, files[p]); err != nil {
			return nil, fmt.Errorf("write %s: %w", p, err)
		}
	}
	return paths, nil
}

// publishedBefore are the paths the index skillsync published in root names,
// each with the digest it records (none for the index itself); none when
// there is no index, and an error when the index there is not skillsync's.
func publishedBefore(root workspacefs.FS) (map[string]string, error) {
	data, err := root.ReadRegular(IndexPath, maxIndexSize)
	if errors.Is(err, fs.ErrNotExist) {
		return map[string]string{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", IndexPath, workspacefs.Cause(err))
	}
	var ix publishedIndex
	if json.Unmarshal(data, &ix) != nil || ix.Generator != generator {
		return nil, fmt.Errorf("%s is there and skillsync did not publish it; kept, and nothing was written (publish into another directory, or remove it)", IndexPath)
	}
	ours := map[string]string{IndexPath: ""}
	for _, e := range ix.Skills {
		if !strings.Contains(e.URL, "://") && !strings.HasPrefix(e.URL, "/") {
			ours[path.Join(path.Dir(IndexPath), e.URL)] = e.Digest
		}
	}
	return ours, nil
}
