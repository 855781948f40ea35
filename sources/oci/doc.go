// Package oci reads skills from an OCI artifact that skillsync publish pushed
// to a registry, and pushes one: one layer per skill directory, a .tar.gz of
// the folder named by the layer's title, as oras pushes a directory, so that
// oras pull unpacks the same folders. It resolves a tag to its manifest's
// digest, keeps the manifest and the layers it reads in the user's cache by
// digest, and checks every one against its digest whenever it is read.
// Credentials come from the Docker configuration and its credential helpers,
// through oras-go, and go only to the registry they were stored for. A source
// that must be signed is read only after a signature of its manifest, attached
// as an OCI referrer, verifies for each signer.
//
// It imports, of this module: desired/registry, sources/archive, sources/blobs,
// sources/signing.
package oci
