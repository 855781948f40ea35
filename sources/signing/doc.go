// Package signing signs an OCI manifest's digest and verifies such a
// signature, in the form cosign v3 writes for an image: a Sigstore bundle
// (v0.3) holding a DSSE envelope of an in-toto statement whose subject is the
// manifest's digest and whose predicate type is cosign's signature. Signing
// takes a key pair (a cosign key, encrypted or not, or a PKCS#8 PEM key) and
// works offline; verifying takes a public key, or a keyless identity, its
// issuer and a Sigstore trusted root. The cryptography is sigstore-go's.
//
// It imports nothing of this module.
package signing
