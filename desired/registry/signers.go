package registry

import (
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/sha256"
	"crypto/x509"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"path"
	"slices"
	"strings"
)

// Signer is whom an OCI source's content must be signed by: a public key, or
// a keyless identity, its OIDC issuer and the Sigstore trusted root that
// vouches for both.
type Signer struct {
	// A PEM public key file (cosign.pub), relative to the file that declares
	// it. Key-based signatures verify offline.
	Key string `json:"key"`
	// A keyless signer: the certificate's subject (an email, or a CI
	// workflow's URL), exactly.
	Identity string `json:"identity"`
	// The OIDC issuer of a keyless signer's certificate, exactly.
	Issuer string `json:"issuer"`
	// A Sigstore trusted root (trusted_root.json, as cosign trusted-root
	// create or Sigstore's TUF repository gives it), relative to the file that
	// declares it: the certificate authorities and transparency logs a keyless
	// signature is checked against. Keyless only.
	TrustedRoot string `json:"trustedRoot"`
}

// SignerRule requires a signer of every source from some locations.
type SignerRule struct {
	// Locations, as trust's sources patterns read them: a source from one (or
	// from a folder under one) must be signed by this signer.
	Sources []string `json:"sources" jsonschema:"required"`
	// The signer's PEM public key file, relative to the file that declares
	// the rule; as a source's verify names it.
	Key string `json:"key"`
	// A keyless signer's certificate subject, exactly; as a source's verify
	// names it.
	Identity string `json:"identity"`
	// A keyless signer's OIDC issuer, exactly.
	Issuer string `json:"issuer"`
	// The Sigstore trusted root a keyless signature is checked against,
	// relative to the file that declares the rule.
	TrustedRoot string `json:"trustedRoot"`
}

// signer is the signer rule requires.
func (rule SignerRule) signer() Signer {
	return Signer{Key: rule.Key, Identity: rule.Identity, Issuer: rule.Issuer, TrustedRoot: rule.TrustedRoot}
}

// RequiredSigner is a signer a source must be signed by, its files read.
type RequiredSigner struct {
	Signer
	// By says who requires it, for messages: the source's verify, spec.trust
	// or the organisation's policy, with the file.
	By string
	// Key and TrustedRoot, read.
	KeyData, TrustedRootData []byte
}

// Name names the signer in skillsync.lock and in messages: "key sha256:…"
// (the SHA-256 of the key's PKIX DER encoding), or for a keyless signer
// `keyless "IDENTITY" "ISSUER" root sha256:…` (the SHA-256 of the trusted
// root's bytes). Two signers of one name require the same: a keyless signer
// under another root is another signer.
func (s RequiredSigner) Name() string {
	if s.Key == "" {
		sum := sha256.Sum256(s.TrustedRootData)
		return fmt.Sprintf("keyless %q %q root sha256:%s", s.Identity, s.Issuer, hex.EncodeToString(sum[:]))
	}
	if b, _ := pem.Decode(s.KeyData); b != nil {
		sum := sha256.Sum256(b.Bytes)
		return "key sha256:" + hex.EncodeToString(sum[:])
	}
	return "key " + s.Key
}

// check says what is wrong with s as declared: one of key and identity, an
// issuer and a trusted root with an identity, nothing else.
func (s Signer) check() string {
	switch {
	case (s.Key == "") == (s.Identity == ""):
		return "give one of key (a PEM public key file) and identity (a keyless signer)"
	case s.Key != "" && (s.Issuer != "" || s.TrustedRoot != ""):
		return "a key signer takes no issuer or trustedRoot"
	case s.Identity != "" && (s.Issuer == "" || s.TrustedRoot == ""):
		return "a keyless signer needs its issuer and a trustedRoot file"
	}
	return ""
}

// read reads s's files, each named relative to dir, with read; what is wrong
// with them is a message.
func (s Signer) read(dir string, read func(file string) ([]byte, error)) (RequiredSigner, string) {
	r := RequiredSigner{Signer: s}
	if s.Key != "" {
		data, err := read(path.Join(dir, s.Key))
		if err != nil {
			return r, fmt.Sprintf("cannot read the key %s: %v", s.Key, err)
		}
		b, _ := pem.Decode(data)
		if b == nil || b.Type != "PUBLIC KEY" {
			return r, fmt.Sprintf("%s is not a PEM public key (-----BEGIN PUBLIC KEY-----)", s.Key)
		}
		pub, err := x509.ParsePKIXPublicKey(b.Bytes)
		if err != nil {
			return r, fmt.Sprintf("%s holds no public key Go can read", s.Key)
		}
		if !verifiableKey(pub) {
			return r, fmt.Sprintf("%s is a %T key; signatures are verified with ECDSA P-256 or P-384 and Ed25519 keys", s.Key, pub)
		}
		r.KeyData = data
		return r, ""
	}
	data, err := read(path.Join(dir, s.TrustedRoot))
	if err != nil {
		return r, fmt.Sprintf("cannot read the trusted root %s: %v", s.TrustedRoot, err)
	}
	if !json.Valid(data) {
		return r, fmt.Sprintf("%s is not JSON, as a Sigstore trusted_root.json is", s.TrustedRoot)
	}
	r.TrustedRootData = data
	return r, ""
}

// verifiableKey tells whether pub is of a kind signatures are verified with.
func verifiableKey(pub any) bool {
	switch k := pub.(type) {
	case *ecdsa.PublicKey:
		return k.Curve == elliptic.P256() || k.Curve == elliptic.P384()
	case ed25519.PublicKey:
		return true
	}
	return false
}

// boundRule is a signer rule with its signer's files read.
type boundRule struct {
	rule   SignerRule
	signer RequiredSigner
}

// signersFor are the signers src must be signed by: its own verify, and those
// of the rules (spec.trust's, then the policy's) whose locations match src's;
// a signer named twice is required once.
func signersFor(src RemoteSource, own []RequiredSigner, rules []boundRule) []RequiredSigner {
	out := slices.Clone(own)
	location := Location(src)
	for _, r := range rules {
		applies := TrustSpec{Sources: r.rule.Sources}.Allows(location)
		if applies && !slices.ContainsFunc(out, func(s RequiredSigner) bool { return s.Name() == r.signer.Name() }) {
			out = append(out, r.signer)
		}
	}
	return out
}

// SignerNames are the names of signers, sorted.
func SignerNames(signers []RequiredSigner) []string {
	var names []string
	for _, s := range signers {
		names = append(names, s.Name())
	}
	slices.Sort(names)
	return slices.Compact(names)
}

// sourceKind names src's kind in messages.
func sourceKind(src RemoteSource) string {
	switch {
	case src.OCI != "":
		return "an OCI artifact"
	case src.Index != "":
		return "an index"
	}
	return "a git repository"
}

// joinBy lists who requires signers.
func joinBy(signers []RequiredSigner) string {
	var by []string
	for _, s := range signers {
		by = append(by, s.By)
	}
	return strings.Join(slices.Compact(by), " and ")
}
