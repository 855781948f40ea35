package sbom

import (
	"testing"

	"github.com/skillsync/skillsync/desired/registry"
)

func TestASourceIsPinnedAsTheLockSays(t *testing.T) {
	digest := "sha256:" + "ab12cd34ab12cd34ab12cd34ab12cd34ab12cd34ab12cd34ab12cd34ab12cd34"
	for _, tc := range []struct {
		source        registry.LockedSource
		version, purl string
		reference     string
	}{
		{registry.LockedSource{Name: "catalog", OCI: "registry.example.com/acme/catalog:2.0", Digest: digest},
			digest, "pkg:oci/catalog@sha256%3A" + digest[7:] + "?repository_url=registry.example.com%2Facme%2Fcatalog&tag=2.0", "oci://registry.example.com/acme/catalog:2.0"},
		{registry.LockedSource{Name: "team", Git: "https://me:s3cret@git.example.com/acme/skills.git", Commit: "0123456789abcdef0123456789abcdef01234567"},
			"0123456789abcdef0123456789abcdef01234567", "", "https://REDACTED@git.example.com/acme/skills.git"},
	} {
		c := sourceComponent(tc.source)
		if c.Version != tc.version || c.PackageURL != tc.purl || (*c.ExternalReferences)[0].URL != tc.reference {
			t.Errorf("%s: version %q, purl %q, reference %q", tc.source.Name, c.Version, c.PackageURL, (*c.ExternalReferences)[0].URL)
		}
	}
}

func TestASignedSourceNamesItsSignatures(t *testing.T) {
	sig := "sha256:" + "0d75c6d05cb660b53adbd47ca6ce5e0e8fa3aad97ebfa2ce86cc543be4b1bdef"
	c := sourceComponent(registry.LockedSource{Name: "catalog", OCI: "registry.example.com/acme/catalog:2.0", Digest: sig,
		Signatures: map[string]string{"key sha256:9c1e": sig}})
	for _, p := range *c.Properties {
		if p.Name == "skillsync:signed-by" && p.Value == "key sha256:9c1e "+sig {
			return
		}
	}
	t.Errorf("the source's properties name no signature: %+v", *c.Properties)
}
