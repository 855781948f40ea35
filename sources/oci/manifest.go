package oci

import (
	"encoding/json"
	"fmt"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/skillsync/skillsync/desired/registry"
	"github.com/skillsync/skillsync/sources/archive"
)

// The media types of a skills artifact.
const (
	// ArtifactType is the manifest's artifactType: a set of Agent Skills
	// directories, one a layer.
	ArtifactType = "application/vnd.skillsync.skills.v1"
	// LayerMediaType is each layer's: the skill directory as a .tar.gz whose
	// entries are in a folder of the skill's name.
	LayerMediaType = ocispec.MediaTypeImageLayerGzip
	// DocumentMediaType is a registry file's (Capabilities, Profiles,
	// Skills), whole, titled by its path.
	DocumentMediaType = "application/vnd.skillsync.registry.v1+yaml"
	// The annotations oras sets on a directory it pushes, and reads back to
	// unpack it on pull: unpack, and the digest of the uncompressed tar.
	annotationUnpack    = "io.deis.oras.content.unpack"
	annotationTarDigest = "io.deis.oras.content.digest"
)

// Bounds on what is read: a manifest, as registries bound it, and a registry
// file.
const (
	maxManifestSize = 4 << 20
	maxDocumentSize = 16 << 20
)

// Layer is one skill of an artifact, or one registry file: its name or
// path, and the descriptor of its .tar.gz or of the file.
type Layer struct {
	Skill string
	Desc  ocispec.Descriptor
}

// contents is what an artifact holds: its skills and its registry files, by
// name and by path.
type contents struct {
	skills, documents map[string]Layer
}

// readManifest reads data, a manifest, as a skills artifact.
func readManifest(data []byte) (contents, error) {
	var m ocispec.Manifest
	if err := json.Unmarshal(data, &m); err != nil {
		return contents{}, fmt.Errorf("the manifest is not JSON: %v", err)
	}
	if m.MediaType != ocispec.MediaTypeImageManifest {
		return contents{}, fmt.Errorf("the reference names a %q, not an image manifest", m.MediaType)
	}
	if m.ArtifactType != ArtifactType {
		return contents{}, fmt.Errorf("the artifact is a %q, not the skills (%s) skillsync publish pushes", m.ArtifactType, ArtifactType)
	}
	if len(m.Layers) > archive.MaxSourceSkills {
		return contents{}, fmt.Errorf("the artifact has %d layers; at most %d are read", len(m.Layers), archive.MaxSourceSkills)
	}
	c := contents{skills: map[string]Layer{}, documents: map[string]Layer{}}
	for _, d := range m.Layers {
		name := d.Annotations[ocispec.AnnotationTitle]
		if d.Digest.Algorithm() != digest.SHA256 || d.Digest.Validate() != nil {
			return contents{}, fmt.Errorf("layer %q of the artifact has no sha256 digest", name)
		}
		into, limit := c.skills, int64(archive.MaxSize)
		switch {
		case d.MediaType == DocumentMediaType:
			if !registry.ValidSourcePath(name) {
				return contents{}, fmt.Errorf("layer %s is titled %q, which is no path of a file", d.Digest, name)
			}
			into, limit = c.documents, maxDocumentSize
		case d.MediaType != LayerMediaType:
			return contents{}, fmt.Errorf("layer %s is a %q, neither a %s nor a %s", d.Digest, d.MediaType, LayerMediaType, DocumentMediaType)
		case !registry.ValidSkillName(name):
			return contents{}, fmt.Errorf("layer %s is titled %q, which is no skill name", d.Digest, name)
		}
		if d.Size < 0 || d.Size > limit {
			return contents{}, fmt.Errorf("layer %s (%s) is %d bytes; at most %d are read", d.Digest, name, d.Size, limit)
		}
		if _, twice := into[name]; twice {
			return contents{}, fmt.Errorf("the artifact holds %s twice", name)
		}
		into[name] = Layer{Skill: name, Desc: d}
	}
	return c, nil
}

// buildManifest is the manifest of layers: the same layers give the same
// bytes, so pushing what did not change moves no digest.
func buildManifest(layers []Layer) ([]byte, error) {
	m := ocispec.Manifest{
		MediaType:    ocispec.MediaTypeImageManifest,
		ArtifactType: ArtifactType,
		Config:       ocispec.DescriptorEmptyJSON,
		Layers:       []ocispec.Descriptor{},
	}
	m.SchemaVersion = 2
	for _, l := range layers {
		m.Layers = append(m.Layers, l.Desc)
	}
	return json.Marshal(m)
}

// skillLayer is the layer of one skill directory: its bytes, and a descriptor
// that oras pull unpacks into a folder of the skill's name.
func skillLayer(name string, files []registry.SupportFile) (Layer, []byte, error) {
	tar, err := archive.Tar(files, name)
	if err != nil {
		return Layer{}, nil, err
	}
	gz := archive.Gzip(tar)
	return Layer{Skill: name, Desc: ocispec.Descriptor{
		MediaType: LayerMediaType,
		Digest:    digest.FromBytes(gz),
		Size:      int64(len(gz)),
		Annotations: map[string]string{
			ocispec.AnnotationTitle: name,
			annotationUnpack:        "true",
			annotationTarDigest:     digest.FromBytes(tar).String(),
		},
	}}, gz, nil
}

// documentLayer is the layer of the registry file p.
func documentLayer(p string, data []byte) Layer {
	return Layer{Skill: p, Desc: ocispec.Descriptor{
		MediaType:   DocumentMediaType,
		Digest:      digest.FromBytes(data),
		Size:        int64(len(data)),
		Annotations: map[string]string{ocispec.AnnotationTitle: p},
	}}
}

// skillFiles unpacks the layer of skill: its entries, relative to the skill's
// folder.
func skillFiles(skill string, gz []byte) ([]registry.SourceFile, error) {
	files, err := archive.UnpackFolder(gz, skill)
	if err != nil {
		return nil, fmt.Errorf("the layer of skill %s: %w", skill, err)
	}
	return files, nil
}
