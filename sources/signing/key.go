package signing

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"errors"
	"fmt"
	"os"

	protocommon "github.com/sigstore/protobuf-specs/gen/pb-go/common/v1"
	"github.com/sigstore/sigstore/pkg/cryptoutils"
	"github.com/sigstore/sigstore/pkg/signature"
)

// PasswordVariable holds the password of an encrypted private key, as it does
// for cosign.
const PasswordVariable = "COSIGN_PASSWORD"

// Key is a private key that signs.
type Key struct {
	signer  crypto.Signer
	details signature.AlgorithmDetails
}

// ParsePrivateKey reads a PEM private key: a cosign key (encrypted with the
// password in $COSIGN_PASSWORD), or a PKCS#8, PKCS#1 or SEC 1 key. ECDSA P-256
// and P-384, and Ed25519, are supported.
func ParsePrivateKey(data []byte) (*Key, error) {
	password := func(bool) ([]byte, error) {
		p, ok := os.LookupEnv(PasswordVariable)
		if !ok {
			return nil, nil
		}
		return []byte(p), nil
	}
	private, err := cryptoutils.UnmarshalPEMToPrivateKey(data, password)
	if err != nil {
		// The error may quote what was read; say only what is wrong.
		return nil, fmt.Errorf("not a private key skillsync can read (a cosign key needs its password in $%s): %s", PasswordVariable, errorKind(err))
	}
	signer, ok := private.(crypto.Signer)
	if !ok {
		return nil, errors.New("the private key cannot sign")
	}
	details, err := algorithm(signer.Public())
	if err != nil {
		return nil, err
	}
	return &Key{signer: signer, details: details}, nil
}

// errorKind is a short, content-free description of a key parsing error.
func errorKind(err error) string {
	switch {
	case errors.Is(err, os.ErrNotExist):
		return "no such file"
	case err.Error() == "PEM decoding failed":
		return "no PEM block"
	}
	return "it does not decode or decrypt"
}

// algorithm is how a key of pub's type signs in Sigstore's terms.
func algorithm(pub crypto.PublicKey) (signature.AlgorithmDetails, error) {
	var id protocommon.PublicKeyDetails
	switch k := pub.(type) {
	case *ecdsa.PublicKey:
		switch k.Curve {
		case elliptic.P256():
			id = protocommon.PublicKeyDetails_PKIX_ECDSA_P256_SHA_256
		case elliptic.P384():
			id = protocommon.PublicKeyDetails_PKIX_ECDSA_P384_SHA_384
		default:
			return signature.AlgorithmDetails{}, fmt.Errorf("ECDSA on %s is not supported: use P-256 or P-384", k.Curve.Params().Name)
		}
	case ed25519.PublicKey:
		id = protocommon.PublicKeyDetails_PKIX_ED25519
	default:
		return signature.AlgorithmDetails{}, fmt.Errorf("a %T key is not supported: use ECDSA P-256 (cosign generate-key-pair) or Ed25519", pub)
	}
	return signature.GetAlgorithmDetails(id)
}

// keypair is k as sigstore-go's signer takes it.
type keypair struct{ *Key }

func (k keypair) GetHashAlgorithm() protocommon.HashAlgorithm { return k.details.GetProtoHashType() }
func (k keypair) GetSigningAlgorithm() protocommon.PublicKeyDetails {
	return k.details.GetSignatureAlgorithm()
}

// GetKeyAlgorithm is the key's type, as Fulcio names it.
func (k keypair) GetKeyAlgorithm() string {
	if k.details.GetKeyType() == signature.ED25519 {
		return "ED25519"
	}
	return "ECDSA"
}

func (k keypair) GetPublicKey() crypto.PublicKey { return k.signer.Public() }

// GetHint names the key in the bundle, as cosign does: the base64 SHA-256 of
// its PKIX DER encoding.
func (k keypair) GetHint() []byte {
	der, err := x509.MarshalPKIXPublicKey(k.signer.Public())
	if err != nil {
		return nil
	}
	sum := sha256.Sum256(der)
	return []byte(base64.StdEncoding.EncodeToString(sum[:]))
}

func (k keypair) GetPublicKeyPem() (string, error) {
	pem, err := cryptoutils.MarshalPublicKeyToPEM(k.signer.Public())
	return string(pem), err
}

// SignData signs data: its digest, but for Ed25519, which hashes as it signs.
func (k keypair) SignData(_ context.Context, data []byte) ([]byte, []byte, error) {
	hash := k.details.GetHashType()
	signed := data
	if hash != crypto.Hash(0) {
		h := hash.New()
		h.Write(data)
		signed = h.Sum(nil)
	}
	sig, err := k.signer.Sign(rand.Reader, signed, hash)
	return sig, signed, err
}
