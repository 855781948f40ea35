// Package sbom describes what a workspace takes in as a CycloneDX bill of
// materials: each source as skillsync.lock pins it (its commit, manifest or
// artifacts), the skills and registry files it brings with their digests,
// and the workspace's own skills and capabilities with where they are
// declared. A security team reads it with the tools it reads every other SBOM
// with.
//
// It imports, of this module: desired/registry.
package sbom
