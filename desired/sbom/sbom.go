package sbom

import (
	"cmp"
	"maps"
	"net/url"
	"path"
	"slices"
	"strings"

	cdx "github.com/CycloneDX/cyclonedx-go"

	"github.com/skillsync/skillsync/desired/registry"
)

// SpecVersion is the CycloneDX version written.
const SpecVersion = cdx.SpecVersion1_6

// Of is the bill of materials of reg, whose sources lock pins; version is
// skillsync's own. The same inputs give the same document: it carries no
// time and no serial number.
func Of(reg *registry.Registry, lock registry.Lock, name, version string) *cdx.BOM {
	bom := cdx.NewBOM()
	bom.SerialNumber = ""
	workspace := cdx.Component{BOMRef: "workspace", Type: cdx.ComponentTypeApplication, Name: name}
	bom.Metadata = &cdx.Metadata{
		Component: &workspace,
		Tools: &cdx.ToolsChoice{Components: &[]cdx.Component{
			{Type: cdx.ComponentTypeApplication, Name: "skillsync", Version: version},
		}},
	}
	var sources, own []cdx.Component
	for _, s := range slices.SortedFunc(slices.Values(lock.Sources), func(a, b registry.LockedSource) int { return cmp.Compare(a.Name, b.Name) }) {
		sources = append(sources, sourceComponent(s))
	}
	for _, s := range reg.Skills {
		if s.Origin != nil {
			continue
		}
		c := cdx.Component{BOMRef: "skill:" + s.Name, Type: cdx.ComponentTypeData, Name: s.Name, Description: s.Spec.Description,
			Properties: &[]cdx.Property{{Name: "skillsync:kind", Value: "skill"}, {Name: "skillsync:declared-at", Value: s.File()}}}
		if s.Dir != "" {
			c.Hashes = &[]cdx.Hash{{Algorithm: cdx.HashAlgoSHA256, Value: strings.TrimPrefix(registry.SkillDigest(s.DirSum()), "sha256:")}}
			*c.Properties = append(*c.Properties, cdx.Property{Name: "skillsync:directory", Value: s.Dir})
		}
		own = append(own, c)
	}
	for _, c := range reg.Capabilities {
		if c.FromSource() {
			continue
		}
		comp := cdx.Component{BOMRef: "capability:" + c.ID, Type: cdx.ComponentTypeData, Name: c.ID, Description: c.Spec.Title,
			Properties: &[]cdx.Property{{Name: "skillsync:kind", Value: "capability"}, {Name: "skillsync:declared-at", Value: c.File()},
				{Name: "skillsync:effect", Value: c.Spec.Effect}}}
		own = append(own, comp)
	}
	slices.SortFunc(own, func(a, b cdx.Component) int { return cmp.Compare(a.BOMRef, b.BOMRef) })
	components := append(sources, own...)
	var refs []string
	for _, c := range components {
		refs = append(refs, c.BOMRef)
	}
	bom.Components = &components
	bom.Dependencies = &[]cdx.Dependency{{Ref: workspace.BOMRef, Dependencies: &refs}}
	return bom
}

// sourceComponent is a source as the lock pins it, the skills and registry
// files it brings nested in it.
func sourceComponent(s registry.LockedSource) cdx.Component {
	c := cdx.Component{BOMRef: "source:" + s.Name, Type: cdx.ComponentTypeLibrary, Name: s.Name, Version: s.Pin(),
		Properties: &[]cdx.Property{{Name: "skillsync:kind", Value: "source"}}}
	var refs []cdx.ExternalReference
	switch {
	case s.OCI != "":
		if ref, err := registry.ParseOCIReference(s.OCI); err == nil {
			q := url.Values{"repository_url": {ref.Registry + "/" + ref.Repository}}
			if !strings.HasPrefix(ref.Reference, "sha256:") {
				q.Set("tag", ref.Reference)
			}
			// As the purl specification writes an OCI digest: sha256%3A….
			c.PackageURL = "pkg:oci/" + path.Base(ref.Repository) + "@" + strings.ReplaceAll(s.Digest, ":", "%3A") + "?" + q.Encode()
		}
		refs = append(refs, cdx.ExternalReference{Type: cdx.ERTypeDistribution, URL: "oci://" + s.OCI})
	case s.Index != "":
		refs = append(refs, cdx.ExternalReference{Type: cdx.ERTypeDistribution, URL: s.Index})
	default:
		refs = append(refs, cdx.ExternalReference{Type: cdx.ERTypeVCS, URL: registry.RedactRemote(s.Git)})
		if s.Ref != "" {
			*c.Properties = append(*c.Properties, cdx.Property{Name: "skillsync:ref", Value: s.Ref})
		}
		if s.Path != "" {
			*c.Properties = append(*c.Properties, cdx.Property{Name: "skillsync:path", Value: s.Path})
		}
	}
	for _, signer := range slices.Sorted(maps.Keys(s.Signatures)) {
		*c.Properties = append(*c.Properties, cdx.Property{Name: "skillsync:signed-by", Value: signer + " " + s.Signatures[signer]})
	}
	c.ExternalReferences = &refs
	var nested []cdx.Component
	for _, name := range slices.Sorted(maps.Keys(s.Skills)) {
		nested = append(nested, cdx.Component{BOMRef: "source:" + s.Name + "/skill:" + name, Type: cdx.ComponentTypeData, Name: name,
			Hashes:     &[]cdx.Hash{{Algorithm: cdx.HashAlgoSHA256, Value: strings.TrimPrefix(s.Skills[name], "sha256:")}},
			Properties: &[]cdx.Property{{Name: "skillsync:kind", Value: "skill"}}})
	}
	for _, p := range slices.Sorted(maps.Keys(s.Documents)) {
		nested = append(nested, cdx.Component{BOMRef: "source:" + s.Name + "/file:" + p, Type: cdx.ComponentTypeFile, Name: p,
			Hashes:     &[]cdx.Hash{{Algorithm: cdx.HashAlgoSHA256, Value: strings.TrimPrefix(s.Documents[p], "sha256:")}},
			Properties: &[]cdx.Property{{Name: "skillsync:kind", Value: "registry file"}}})
	}
	if len(nested) > 0 {
		c.Components = &nested
	}
	return c
}
