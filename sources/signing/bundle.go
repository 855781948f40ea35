package signing

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/sigstore/sigstore-go/pkg/bundle"
	"github.com/sigstore/sigstore-go/pkg/root"
	"github.com/sigstore/sigstore-go/pkg/sign"
	"github.com/sigstore/sigstore-go/pkg/verify"
	"github.com/sigstore/sigstore/pkg/cryptoutils"
	"github.com/sigstore/sigstore/pkg/signature"
)

// The OCI names of a signature, as cosign v3 attaches one to an image: the
// referrer's artifact type, its one layer's media type, and its annotations.
const (
	BundleMediaType     = "application/vnd.dev.sigstore.bundle.v0.3+json"
	ContentAnnotation   = "dev.sigstore.bundle.content"
	PredicateAnnotation = "dev.sigstore.bundle.predicateType"
)

// PredicateType is the in-toto predicate type of cosign's image signature.
const PredicateType = "https://sigstore.dev/cosign/sign/v1"

// statementType is the in-toto statement the envelope carries.
const (
	statementType = "https://in-toto.io/Statement/v1"
	payloadType   = "application/vnd.in-toto+json"
)

// MaxBundleSize bounds the bundle read from a registry.
const MaxBundleSize = 1 << 20

// Sign is a Sigstore bundle signing the manifest whose digest is
// manifestDigest (sha256:…), named name (the artifact's repository).
func (k *Key) Sign(name, manifestDigest string) ([]byte, error) {
	hexDigest, err := sha256Hex(manifestDigest)
	if err != nil {
		return nil, err
	}
	statement, err := json.Marshal(map[string]any{
		"_type":         statementType,
		"subject":       []map[string]any{{"name": name, "digest": map[string]string{"sha256": hexDigest}}},
		"predicateType": PredicateType,
		"predicate":     map[string]any{},
	})
	if err != nil {
		return nil, err
	}
	pb, err := sign.Bundle(&sign.DSSEData{Data: statement, PayloadType: payloadType}, keypair{k}, sign.BundleOptions{})
	if err != nil {
		return nil, fmt.Errorf("sign %s: %w", manifestDigest, err)
	}
	return (&bundle.Bundle{Bundle: pb}).MarshalJSON()
}

// sha256Hex is the hex of a sha256: digest.
func sha256Hex(d string) (string, error) {
	h, ok := strings.CutPrefix(d, "sha256:")
	if b, err := hex.DecodeString(h); !ok || err != nil || len(b) != 32 {
		return "", fmt.Errorf("%q is not a sha256: digest", d)
	}
	return h, nil
}

// Verifier checks signatures against one signer: a public key, or a keyless
// identity under a trusted root.
type Verifier struct {
	verifier *verify.Verifier
	identity verify.PolicyOption
}

// Verifier verifies the signatures k makes.
func (k *Key) Verifier() (*Verifier, error) {
	data, err := cryptoutils.MarshalPublicKeyToPEM(k.signer.Public())
	if err != nil {
		return nil, err
	}
	return PublicKeyVerifier(data)
}

// PublicKeyVerifier verifies signatures made with the private key of the PEM
// public key data.
func PublicKeyVerifier(data []byte) (*Verifier, error) {
	pub, err := cryptoutils.UnmarshalPEMToPublicKey(data)
	if err != nil {
		return nil, errors.New("not a PEM public key")
	}
	details, err := algorithm(pub)
	if err != nil {
		return nil, err
	}
	sv, err := signature.LoadVerifier(pub, details.GetHashType())
	if err != nil {
		return nil, err
	}
	key := root.NewExpiringKey(sv, time.Time{}, time.Time{})
	material := root.NewTrustedPublicKeyMaterial(func(string) (root.TimeConstrainedVerifier, error) { return key, nil })
	v, err := verify.NewVerifier(material, verify.WithNoObserverTimestamps())
	if err != nil {
		return nil, err
	}
	return &Verifier{verifier: v, identity: verify.WithKey()}, nil
}

// KeylessVerifier verifies signatures whose certificate, issued under the
// trusted root (a Sigstore trusted_root.json), names identity (the
// certificate's subject alternative name: an email or a workflow URL) and
// issuer (the OIDC issuer), and which the root's transparency log recorded.
func KeylessVerifier(trustedRoot []byte, identity, issuer string) (*Verifier, error) {
	tr, err := root.NewTrustedRootFromJSON(trustedRoot)
	if err != nil {
		return nil, fmt.Errorf("not a Sigstore trusted root: %w", err)
	}
	return keylessVerifier(tr, identity, issuer)
}

func keylessVerifier(material root.TrustedMaterial, identity, issuer string) (*Verifier, error) {
	id, err := verify.NewShortCertificateIdentity(issuer, "", identity, "")
	if err != nil {
		return nil, err
	}
	v, err := verify.NewVerifier(material, verify.WithTransparencyLog(1), verify.WithObserverTimestamps(1))
	if err != nil {
		return nil, err
	}
	return &Verifier{verifier: v, identity: verify.WithCertificateIdentity(id)}, nil
}

// Verify checks that data, a Sigstore bundle, signs the manifest whose digest
// is manifestDigest as an image signature, by v's signer.
func (v *Verifier) Verify(data []byte, manifestDigest string) error {
	hexDigest, err := sha256Hex(manifestDigest)
	if err != nil {
		return err
	}
	if len(data) > MaxBundleSize {
		return fmt.Errorf("the signature is %d bytes; at most %d are read", len(data), MaxBundleSize)
	}
	var b bundle.Bundle
	if err := b.UnmarshalJSON(data); err != nil {
		return fmt.Errorf("not a Sigstore bundle: %w", err)
	}
	return v.verifyEntity(&b, hexDigest)
}

// verifyEntity checks that entity signs the manifest whose SHA-256 is
// hexDigest as an image signature, by v's signer.
func (v *Verifier) verifyEntity(entity verify.SignedEntity, hexDigest string) error {
	raw, _ := hex.DecodeString(hexDigest)
	result, err := v.verifier.Verify(entity, verify.NewPolicy(verify.WithArtifactDigest("sha256", raw), v.identity))
	if err != nil {
		return fmt.Errorf("it does not verify: %w", err)
	}
	if result.Statement == nil || result.Statement.GetPredicateType() != PredicateType {
		return fmt.Errorf("it signs a %q statement, not an image signature (%s)", predicateOf(result), PredicateType)
	}
	return nil
}

// predicateOf is the predicate type of what result verified, for messages.
func predicateOf(result *verify.VerificationResult) string {
	if result.Statement == nil {
		return "bare message"
	}
	return result.Statement.GetPredicateType()
}
