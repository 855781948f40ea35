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
	// The annotations oras sets on a directory it pushes, and reads back to
	// unpack it on pull: unpack, and the digest of the uncompressed tar.
	annotationUnpack    = "io.deis.oras.content.unpack"
	annotationTarDigest = "io.deis.oras.content.digest"
)

// maxManifestSize bounds a manifest, as registries do.
const maxManifestSize = 4 << 20

// Layer is one skill of an artifact: its name, and the descriptor of its
// .tar.gz.
type Layer struct {
	Skill string
	Desc  ocispec.Descriptor
}

// readManifest reads data, a manifest, as a skills artifact: the layer of
// each skill, by name.
func readManifest(data []byte) (map[string]Layer, error) {
	var m ocispec.Manifest
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("the manifest is not JSON: %v", err)
	}
	if m.MediaType != ocispec.MediaTypeImageManifest {
		return nil, fmt.Errorf("the reference names a %q, not an image manifest", m.MediaType)
	}
	if m.ArtifactType != ArtifactType {
		return nil, fmt.Errorf("the artifact is a %q, not the skills (%s) skillsync publish pushes", m.ArtifactType, ArtifactType)
	}
	layers := map[string]Layer{}
	for _, d := range m.Layers {
		name := d.Annotations[ocispec.AnnotationTitle]
		switch {
		case d.MediaType != LayerMediaType:
			return nil, fmt.Errorf("layer %s is a %q, not a %s", d.Digest, d.MediaType, LayerMediaType)
		case !registry.ValidSkillName(name):
			return nil, fmt.Errorf("layer %s is titled %q, which is no skill name", d.Digest, name)
		case d.Digest.Algorithm() != digest.SHA256 || d.Digest.Validate() != nil:
			return nil, fmt.Errorf("layer %s of skill %s has no sha256 digest", d.Digest, name)
		case d.Size < 0 || d.Size > archive.MaxSize:
			return nil, fmt.Errorf("layer %s of skill %s is %d bytes; a skill's archive holds at most %d", d.Digest, name, d.Size, archive.MaxSize)
		}
		if _, twice := layers[name]; twice {
			return nil, fmt.Errorf("the artifact holds skill %s twice", name)
		}
		layers[name] = Layer{Skill: name, Desc: d}
	}
	return layers, nil
}

// buildManifest is the manifest of layers: the same layers give the same
// bytes, so pushing what did not change moves no tag.
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

// skillFiles unpacks the layer of skill: its entries, relative to the skill's
// folder.
func skillFiles(skill string, gz []byte) ([]registry.SourceFile, error) {
	files, err := archive.UnpackFolder(gz, skill)
	if err != nil {
		return nil, fmt.Errorf("the layer of skill %s: %w", skill, err)
	}
	return files, nil
}
