package signing

import (
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"

	"github.com/sigstore/sigstore-go/pkg/testing/ca"
	"github.com/sigstore/sigstore/pkg/cryptoutils"
)

const (
	manifest = "sha256:5f70bf18a086007016e948b04aed3b82103a36bea41755b6cddfaf10ace3c6ef"
	other    = "sha256:0000000000000000000000000000000000000000000000000000000000000001"
)

// keyPair is a private key's PEM (encrypted with password when it is not
// empty) and its public key's.
func keyPair(t *testing.T, password string) (private, public []byte) {
	t.Helper()
	var pf cryptoutils.PassFunc
	if password != "" {
		pf = cryptoutils.StaticPasswordFunc([]byte(password))
	}
	private, public, err := cryptoutils.GeneratePEMEncodedECDSAKeyPair(elliptic.P256(), pf)
	if err != nil {
		t.Fatal(err)
	}
	return private, public
}

func signed(t *testing.T, privatePEM []byte, digest string) []byte {
	t.Helper()
	k, err := ParsePrivateKey(privatePEM)
	if err != nil {
		t.Fatal(err)
	}
	b, err := k.Sign("registry.example.com/acme/skills", digest)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func verifier(t *testing.T, publicPEM []byte) *Verifier {
	t.Helper()
	v, err := PublicKeyVerifier(publicPEM)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestKeySignsAndVerifies(t *testing.T) {
	private, public := keyPair(t, "")
	b := signed(t, private, manifest)
	v := verifier(t, public)
	if err := v.Verify(b, manifest); err != nil {
		t.Fatalf("a signature by the key does not verify: %v", err)
	}
	// The bundle is cosign's image signature: a DSSE envelope of an in-toto
	// statement about the manifest.
	var parsed struct {
		MediaType    string `json:"mediaType"`
		DSSEEnvelope struct {
			PayloadType string `json:"payloadType"`
			Payload     string `json:"payload"`
		} `json:"dsseEnvelope"`
	}
	if err := json.Unmarshal(b, &parsed); err != nil {
		t.Fatal(err)
	}
	payload, _ := base64.StdEncoding.DecodeString(parsed.DSSEEnvelope.Payload)
	var statement struct {
		PredicateType string `json:"predicateType"`
		Subject       []struct {
			Digest map[string]string `json:"digest"`
		} `json:"subject"`
	}
	if err := json.Unmarshal(payload, &statement); err != nil {
		t.Fatal(err)
	}
	if parsed.MediaType != BundleMediaType || parsed.DSSEEnvelope.PayloadType != payloadType || statement.PredicateType != PredicateType ||
		len(statement.Subject) != 1 || "sha256:"+statement.Subject[0].Digest["sha256"] != manifest {
		t.Errorf("the bundle is not cosign's image signature of %s: %s", manifest, b)
	}
}

func TestEncryptedCosignKey(t *testing.T) {
	private, public := keyPair(t, "correct horse")
	if !strings.Contains(string(private), "ENCRYPTED SIGSTORE PRIVATE KEY") {
		t.Fatalf("the key is not encrypted as cosign writes it:\n%s", private)
	}
	t.Setenv(PasswordVariable, "wrong")
	_, err := ParsePrivateKey(private)
	if err == nil || strings.Contains(err.Error(), "wrong") || !strings.Contains(err.Error(), PasswordVariable) {
		t.Fatalf("a wrong password gives %v; want an error naming $%s and not the password", err, PasswordVariable)
	}
	t.Setenv(PasswordVariable, "correct horse")
	if err := verifier(t, public).Verify(signed(t, private, manifest), manifest); err != nil {
		t.Fatal(err)
	}
}

func TestEd25519(t *testing.T) {
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	privatePEM, err := cryptoutils.MarshalPrivateKeyToPEM(priv)
	if err != nil {
		t.Fatal(err)
	}
	publicPEM, err := cryptoutils.MarshalPublicKeyToPEM(pub)
	if err != nil {
		t.Fatal(err)
	}
	if err := verifier(t, publicPEM).Verify(signed(t, privatePEM, manifest), manifest); err != nil {
		t.Fatal(err)
	}
}

func TestRefusals(t *testing.T) {
	private, public := keyPair(t, "")
	otherPrivate, _ := keyPair(t, "")
	good := signed(t, private, manifest)
	tampered := []byte(strings.Replace(string(good), `"sig":"`, `"sig":"AAAA`, 1))
	if string(tampered) == string(good) {
		t.Fatal("the test did not tamper with the signature")
	}
	cases := []struct {
		name   string
		bundle []byte
		digest string
		want   string
	}{
		{"signed by another key", signed(t, otherPrivate, manifest), manifest, "does not verify"},
		{"signs another manifest", signed(t, private, other), manifest, "does not verify"},
		{"tampered signature", tampered, manifest, "does not verify"},
		{"not a bundle", []byte(`{"mediaType":"text/plain"}`), manifest, "not a Sigstore bundle"},
		{"not JSON", []byte("\x00\x01"), manifest, "not a Sigstore bundle"},
		{"too big", make([]byte, MaxBundleSize+1), manifest, "at most"},
		{"digest not sha256", good, "md5:abc", "not a sha256: digest"},
	}
	v := verifier(t, public)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := v.Verify(c.bundle, c.digest)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("Verify = %v, want an error saying %q", err, c.want)
			}
		})
	}
}

func TestUnsupportedKeys(t *testing.T) {
	k, err := ecdsa.GenerateKey(elliptic.P521(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	pemData, err := cryptoutils.MarshalPrivateKeyToPEM(k)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ParsePrivateKey(pemData); err == nil || !strings.Contains(err.Error(), "P-256") {
		t.Errorf("a P-521 key gives %v, want a refusal naming what is supported", err)
	}
	for _, bad := range []string{"", "not a key", "-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n"} {
		if _, err := ParsePrivateKey([]byte(bad)); err == nil {
			t.Errorf("ParsePrivateKey(%q) succeeded", bad)
		}
		if _, err := PublicKeyVerifier([]byte(bad)); err == nil {
			t.Errorf("PublicKeyVerifier(%q) succeeded", bad)
		}
	}
}

// TestKeyless verifies signatures whose certificates a (virtual) Fulcio issued
// and a (virtual) Rekor recorded: the identity and issuer must both match.
func TestKeyless(t *testing.T) {
	sigstore, err := ca.NewVirtualSigstore()
	if err != nil {
		t.Fatal(err)
	}
	statement := func(digest string) []byte {
		data, _ := json.Marshal(map[string]any{
			"_type": statementType, "predicateType": PredicateType, "predicate": map[string]any{},
			"subject": []map[string]any{{"name": "r", "digest": map[string]string{"sha256": strings.TrimPrefix(digest, "sha256:")}}},
		})
		return data
	}
	const identity, issuer = "release@acme.example", "https://accounts.acme.example"
	entity, err := sigstore.Attest(identity, issuer, statement(manifest))
	if err != nil {
		t.Fatal(err)
	}
	hexOf := func(d string) string { return strings.TrimPrefix(d, "sha256:") }
	v, err := keylessVerifier(sigstore, identity, issuer)
	if err != nil {
		t.Fatal(err)
	}
	if err := v.verifyEntity(entity, hexOf(manifest)); err != nil {
		t.Fatalf("a keyless signature by %s does not verify: %v", identity, err)
	}
	if err := v.verifyEntity(entity, hexOf(other)); err == nil {
		t.Error("a signature of one manifest verifies for another")
	}
	for _, who := range [][2]string{{"mallory@acme.example", issuer}, {identity, "https://evil.example"}} {
		w, err := keylessVerifier(sigstore, who[0], who[1])
		if err != nil {
			t.Fatal(err)
		}
		if err := w.verifyEntity(entity, hexOf(manifest)); err == nil {
			t.Errorf("a signature by %s (%s) verifies for %s (%s)", identity, issuer, who[0], who[1])
		}
	}
	if _, err := KeylessVerifier([]byte("{}"), identity, issuer); err == nil {
		t.Error("an empty trusted root is taken")
	}
}
