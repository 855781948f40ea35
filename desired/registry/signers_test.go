package registry

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/skillsync/skillsync/internal/workspacefs"
)

func publicKeyPEM(t *testing.T) string {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.MarshalPKIXPublicKey(k.Public())
	if err != nil {
		t.Fatal(err)
	}
	return string(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}))
}

// signedSources records the signers each source was read with.
type signedSources struct {
	fakeSources
	policy  *Policy
	signers map[string][]string
}

func (s signedSources) Policy() (*Policy, error) { return s.policy, nil }

func (s signedSources) ReadSource(src RemoteSource, at LockedSource) ([]SourceFile, error) {
	s.signers[src.Name] = SignerNames(src.Signers)
	return s.fakeSources.ReadSource(src, at)
}

const catalogDigest = "sha256:1111111111111111111111111111111111111111111111111111111111111111"
const signatureDigest = "sha256:2222222222222222222222222222222222222222222222222222222222222222"

// signedWorkspace is a workspace with an OCI source from
// registry.example.com/acme/catalog and a git source from git.example.com,
// with more appended to skillsync.yaml, and its lock recording a signature by
// each of signers for the OCI source.
func signedWorkspace(t *testing.T, more string, files map[string]string, signers ...string) (string, fakeSources) {
	t.Helper()
	held := fakeSources{"catalog": skillFiles("deploy", "Deploy."), "team": skillFiles("lint", "Lint.")}
	catalogSums, _ := SourceSkills(RemoteSource{Name: "catalog"}, held["catalog"])
	teamSums, _ := SourceSkills(RemoteSource{Name: "team"}, held["team"])
	lock := Lock{Sources: []LockedSource{
		{Name: "catalog", OCI: "registry.example.com/acme/catalog:2.0", Digest: catalogDigest, Skills: map[string]string{"deploy": SkillDigest(catalogSums["deploy"])}},
		{Name: "team", Git: "https://git.example.com/team/skills.git", Commit: commitA, Skills: map[string]string{"lint": SkillDigest(teamSums["lint"])}},
	}}
	if len(signers) > 0 {
		lock.Sources[0].Signatures = map[string]string{}
		for _, s := range signers {
			lock.Sources[0].Signatures[s] = signatureDigest
		}
	}
	all := map[string]string{
		ConfigName: "apiVersion: skillsync/v1\nkind: Workspace\nspec:\n  registry: []\n  sources:\n" +
			"    - name: catalog\n      oci: registry.example.com/acme/catalog:2.0\n" + more,
		LockName: string(FormatLock(lock)),
	}
	for k, v := range files {
		all[k] = v
	}
	if !strings.Contains(all[ConfigName], "name: team") {
		all[ConfigName] = strings.Replace(all[ConfigName], "  sources:\n", "  sources:\n    - name: team\n      git: https://git.example.com/team/skills.git\n", 1)
	}
	return workspace(t, all), held
}

func keyName(t *testing.T, pemData string) string {
	t.Helper()
	return RequiredSigner{Signer: Signer{Key: "k.pub"}, KeyData: []byte(pemData)}.Name()
}

func TestASourceWithVerifyIsReadWithItsSigner(t *testing.T) {
	team := publicKeyPEM(t)
	name := keyName(t, team)
	if !strings.HasPrefix(name, "key sha256:") || len(name) != len("key sha256:")+64 {
		t.Fatalf("the key's name %q is not its fingerprint", name)
	}
	root, held := signedWorkspace(t, "      verify: {key: keys/team.pub}\n", map[string]string{"keys/team.pub": team}, name)
	got := signedSources{held, nil, map[string][]string{}}
	if _, err := LoadReading(workspacefs.OS{}, root, ConfigName, nil, got); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got.signers["catalog"], []string{name}) || len(got.signers["team"]) != 0 {
		t.Fatalf("sources were read with signers %v, want catalog's key alone", got.signers)
	}
	// The lock must record a signature by every signer the source requires
	// now: a new verify needs an update.
	root, held = signedWorkspace(t, "      verify: {key: keys/team.pub}\n", map[string]string{"keys/team.pub": team})
	_, err := LoadReading(workspacefs.OS{}, root, ConfigName, nil, signedSources{held, nil, map[string][]string{}})
	if err == nil || !strings.Contains(err.Error(), "source catalog is not in skillsync.lock as declared here") {
		t.Fatalf("a lock without the signature: %v", err)
	}
}

func TestAPolicyRequiresSignersAWorkspaceCannotDrop(t *testing.T) {
	dir := t.TempDir()
	acme := publicKeyPEM(t)
	if err := os.WriteFile(filepath.Join(dir, "acme.pub"), []byte(acme), 0o644); err != nil {
		t.Fatal(err)
	}
	read := func(name string) ([]byte, error) { return os.ReadFile(filepath.Join(dir, name)) }
	policy, ps := ParsePolicy(filepath.Join(dir, "policy.yaml"), []byte("apiVersion: skillsync/v1\nkind: Policy\nspec:\n  sources: [registry.example.com/acme, git.example.com]\n"+
		"  signers:\n    - sources: [registry.example.com/acme]\n      key: acme.pub\n"), read)
	if len(ps) > 0 {
		t.Fatal(ps)
	}
	acmeName := keyName(t, acme)
	team := publicKeyPEM(t)
	teamName := keyName(t, team)

	t.Run("the policy's signer is required with no verify", func(t *testing.T) {
		root, held := signedWorkspace(t, "", nil, acmeName)
		got := signedSources{held, &policy, map[string][]string{}}
		if _, err := LoadReading(workspacefs.OS{}, root, ConfigName, nil, got); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got.signers["catalog"], []string{acmeName}) {
			t.Fatalf("catalog was read with signers %v, want the policy's %s", got.signers["catalog"], acmeName)
		}
	})

	t.Run("a workspace's verify adds a signer", func(t *testing.T) {
		root, held := signedWorkspace(t, "      verify: {key: team.pub}\n", map[string]string{"team.pub": team}, acmeName, teamName)
		got := signedSources{held, &policy, map[string][]string{}}
		if _, err := LoadReading(workspacefs.OS{}, root, ConfigName, nil, got); err != nil {
			t.Fatal(err)
		}
		want := []string{acmeName, teamName}
		slices.Sort(want)
		if !slices.Equal(got.signers["catalog"], want) {
			t.Fatalf("catalog was read with signers %v, want both %v", got.signers["catalog"], want)
		}
	})

	t.Run("a lock that drops the policy's signer is stale", func(t *testing.T) {
		root, held := signedWorkspace(t, "", nil)
		_, err := LoadReading(workspacefs.OS{}, root, ConfigName, nil, signedSources{held, &policy, map[string][]string{}})
		if err == nil || !strings.Contains(err.Error(), "source catalog is not in skillsync.lock as declared here") {
			t.Fatalf("a lock without the policy's signature: %v", err)
		}
	})

	t.Run("a source that must be signed and cannot be", func(t *testing.T) {
		strict, ps := ParsePolicy(filepath.Join(dir, "policy.yaml"), []byte("apiVersion: skillsync/v1\nkind: Policy\nspec:\n  sources: ['*']\n"+
			"  signers:\n    - sources: ['*']\n      key: acme.pub\n"), read)
		if len(ps) > 0 {
			t.Fatal(ps)
		}
		root, held := signedWorkspace(t, "", nil, acmeName)
		got := signedSources{held, &strict, map[string][]string{}}
		_, err := LoadReading(workspacefs.OS{}, root, ConfigName, nil, got)
		want := "skillsync.yaml:6:7: source team must be signed (the organisation's policy (" + filepath.Join(dir, "policy.yaml") + ") requires it), and a git repository carries no signature skillsync can verify"
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Fatalf("err = %v\nwant %s", err, want)
		}
		if len(got.signers) != 0 {
			t.Errorf("sources were read despite the refusal: %v", got.signers)
		}
	})

	t.Run("spec.trust requires a signer too", func(t *testing.T) {
		root, held := signedWorkspace(t, "  trust:\n    sources: [registry.example.com, git.example.com]\n    signers:\n      - sources: [registry.example.com/acme/catalog]\n        key: team.pub\n",
			map[string]string{"team.pub": team}, acmeName, teamName)
		got := signedSources{held, &policy, map[string][]string{}}
		if _, err := LoadReading(workspacefs.OS{}, root, ConfigName, nil, got); err != nil {
			t.Fatal(err)
		}
		if len(got.signers["catalog"]) != 2 {
			t.Fatalf("catalog was read with signers %v, want the policy's and spec.trust's", got.signers["catalog"])
		}
	})
}

func TestASignerThatCannotBeReadIsAProblemAtItsLine(t *testing.T) {
	private := "-----BEGIN PRIVATE KEY-----\nMC4CAQAwBQYDK2VwBCIEIAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA\n-----END PRIVATE KEY-----\n"
	for _, tc := range []struct{ name, verify, want string }{
		{"missing key", "{key: keys/none.pub}", "skillsync.yaml:10:15: verify of source catalog: cannot read the key keys/none.pub"},
		{"a private key", "{key: keys/private.pem}", "keys/private.pem is not a PEM public key"},
		{"not PEM", "{key: skillsync.yaml}", "skillsync.yaml is not a PEM public key"},
		{"key and identity", "{key: keys/private.pem, identity: a@b.example}", "give one of key (a PEM public key file) and identity"},
		{"keyless without root", "{identity: a@b.example, issuer: https://b.example}", "a keyless signer needs its issuer and a trustedRoot file"},
		{"keyless with a root that is not JSON", "{identity: a@b.example, issuer: https://b.example, trustedRoot: keys/private.pem}", "keys/private.pem is not JSON"},
		{"neither", "{}", "give one of key"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root, held := signedWorkspace(t, "      verify: "+tc.verify+"\n", map[string]string{"keys/private.pem": private})
			got := signedSources{held, nil, map[string][]string{}}
			_, err := LoadReading(workspacefs.OS{}, root, ConfigName, nil, got)
			var ps Problems
			if !errors.As(err, &ps) || !strings.Contains(ps.Error(), tc.want) {
				t.Fatalf("err = %v\nwant %s", err, tc.want)
			}
			if len(got.signers) != 0 {
				t.Errorf("sources were read: %v", got.signers)
			}
		})
	}
}

func TestTheLockRecordsSignaturesOfOCISourcesOnly(t *testing.T) {
	l := Lock{Sources: []LockedSource{{Name: "catalog", OCI: "registry.example.com/acme/catalog:2.0", Digest: catalogDigest,
		Skills: map[string]string{}, Signatures: map[string]string{"key sha256:ab": signatureDigest, "ci@acme.example (https://token.actions.githubusercontent.com)": signatureDigest}}}}
	data := FormatLock(l)
	back, ps := ParseLock(LockName, data)
	if len(ps) > 0 {
		t.Fatalf("%s\n%s", ps, data)
	}
	if string(FormatLock(back)) != string(data) {
		t.Fatalf("the lock does not read back as written:\n%s", data)
	}
	bad := strings.Replace(string(data), signatureDigest, "sha256:nothex", 1)
	if _, ps := ParseLock(LockName, []byte(bad)); !strings.Contains(ps.Error(), "not the sha256: digest of an OCI artifact's signature") {
		t.Errorf("a malformed signature digest: %v", ps)
	}
	git := "sources:\n  - name: team\n    git: https://git.example.com/team.git\n    commit: " + commitA + "\n    signatures:\n      key sha256:ab: " + signatureDigest + "\n    skills: {}\n"
	if _, ps := ParseLock(LockName, []byte(git)); !strings.Contains(ps.Error(), "not the sha256: digest of an OCI artifact's signature") {
		t.Errorf("a git source with a signature: %v", ps)
	}
}

func TestAKeylessSignerIsItsIdentityIssuerAndRoot(t *testing.T) {
	signer := func(identity, issuer, root string) RequiredSigner {
		return RequiredSigner{Signer: Signer{Identity: identity, Issuer: issuer, TrustedRoot: "root.json"}, TrustedRootData: []byte(root)}
	}
	policy := signer("https://github.com/acme/skills/.github/workflows/release.yml@refs/heads/main", "https://token.actions.githubusercontent.com", `{"sigstore":"public"}`)
	own := signer(policy.Identity, policy.Issuer, `{"ca":"the workspace's own"}`)
	if policy.Name() == own.Name() {
		t.Fatalf("a keyless signer under another trusted root has the same name %q", own.Name())
	}
	// A workspace's verify under its own root cannot stand in for the
	// policy's signer: both are required.
	rules := []boundRule{{rule: SignerRule{Sources: []string{"*"}}, signer: policy}}
	got := signersFor(RemoteSource{OCI: "registry.example.com/acme/catalog:1"}, []RequiredSigner{own}, rules)
	if len(got) != 2 {
		t.Fatalf("the source must be signed by %d signers, want the workspace's and the policy's", len(got))
	}
	if a, b := signer("a (b)", "c", "r"), signer("a", "b) (c", "r"); a.Name() == b.Name() {
		t.Errorf("two keyless signers share the name %q", a.Name())
	}
}

func TestARuleCannotBeSteppedAroundByRespellingAHost(t *testing.T) {
	rule := TrustSpec{Sources: []string{"registry.example.com/acme", "Git.Example.com:443/team", "[2001:DB8::1]/v6"}}
	for _, src := range []RemoteSource{
		{OCI: "registry.example.com/acme/catalog:1"},
		{OCI: "REGISTRY.Example.COM/acme/catalog:1"},
		{OCI: "registry.example.com:443/acme/catalog:1"},
		{OCI: "registry.example.com:0443/acme/catalog:1"},
		{OCI: "registry.example.com:5000/acme/catalog:1"},
		{OCI: "registry.example.com./acme/catalog:1"},
		{Git: "https://GIT.example.com/team/skills.git"},
		{Git: "https://git.example.com/TEAM/skills.git"},
		{Git: "https://git.example.com:443/team/skills.git"},
		{Git: "ssh://git@git.example.com:022/team/skills.git"},
		{Git: "git@GIT.example.com:team/skills.git"},
		{Git: "https://[2001:db8:0::1]/v6/skills.git"},
		{Index: "https://Registry.Example.com:443/acme/.well-known/agent-skills/index.json"},
	} {
		if !rule.Allows(Location(src)) {
			t.Errorf("%+v (location %s) escapes a rule about its host", src, Location(src))
		}
	}
	if got := Location(RemoteSource{OCI: "[::ffff:127.0.0.1]:5000/acme/catalog:1"}); got != "127.0.0.1/acme/catalog" {
		t.Errorf("an IPv4 address written as IPv6 is at %s", got)
	}
	if rule.Allows(Location(RemoteSource{Git: "https://1/team/skills.git"})) {
		t.Error("an IPv6 pattern reads as a character class")
	}
	if got := Location(RemoteSource{Git: "file:///srv/Skills"}); got != "file:/srv/Skills" {
		t.Errorf("a path of this machine is respelled: %s", got)
	}
	for location, odd := range map[string]bool{"10.1/a": true, "167772161/a": true, "0x0a.0.0.1/a": true, "10.0.0.1/a": false, "2001:db8::1/a": false,
		"registry.example.com/a": false, "deadbeef.cafe/a": false, "file:/srv/1": false} {
		if oddAddress(location) != odd {
			t.Errorf("oddAddress(%s) = %v", location, !odd)
		}
	}
}

func TestAKeyOfAKindThatCannotVerifyIsAProblemAtLoad(t *testing.T) {
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.MarshalPKIXPublicKey(k.Public())
	if err != nil {
		t.Fatal(err)
	}
	root, held := signedWorkspace(t, "      verify: {key: rsa.pub}\n", map[string]string{"rsa.pub": string(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}))})
	_, err = LoadReading(workspacefs.OS{}, root, ConfigName, nil, signedSources{held, nil, map[string][]string{}})
	if err == nil || !strings.Contains(err.Error(), "rsa.pub is a *rsa.PublicKey key; signatures are verified with ECDSA P-256 or P-384 and Ed25519 keys") {
		t.Fatalf("an RSA key: %v", err)
	}
}
