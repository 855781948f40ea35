package registry

import (
	"errors"
	"fmt"
	"strings"
	"unicode"

	orasregistry "oras.land/oras-go/v2/registry"
)

// OCIReference is an oci: source as read: where the artifact is, and the tag or
// digest that names it.
type OCIReference struct {
	Registry, Repository, Reference string
	// PlainHTTP is set for a registry at a loopback address, a registry
	// under test; every other one is read over https.
	PlainHTTP bool
}

// String is the reference as skillsync.yaml writes it, the tag filled in.
func (r OCIReference) String() string {
	sep := ":"
	if strings.HasPrefix(r.Reference, "sha256:") {
		sep = "@"
	}
	return r.Registry + "/" + r.Repository + sep + r.Reference
}

// ParseOCIReference reads ref, REGISTRY/REPOSITORY[:TAG|@DIGEST], as oras and
// docker do; the tag is latest when neither tag nor digest is given.
func ParseOCIReference(ref string) (OCIReference, error) {
	if strings.IndexFunc(ref, func(r rune) bool { return unicode.IsControl(r) || unicode.IsSpace(r) }) >= 0 {
		return OCIReference{}, fmt.Errorf("the OCI reference %q holds a space or a control character", ref)
	}
	if strings.Contains(ref, "://") {
		return OCIReference{}, fmt.Errorf("the OCI reference %s has a scheme; write REGISTRY/REPOSITORY:TAG, without %s", RedactRemote(ref), ref[:strings.Index(ref, "://")+3])
	}
	if host, _, _ := strings.Cut(ref, "/"); strings.Contains(host, "@") {
		// A user@ before the registry could only be a secret: say where, not
		// what.
		return OCIReference{}, errors.New("the OCI reference names a user or token before its registry; a credential comes from docker login or oras login, never from the reference")
	}
	if strings.Contains(ref, "@") && !strings.Contains(ref, "@sha256:") {
		// A user@ is no part of an OCI reference; it could only be a secret.
		return OCIReference{}, fmt.Errorf("the OCI reference %s is not REGISTRY/REPOSITORY:TAG or REGISTRY/REPOSITORY@sha256:DIGEST", RedactRemote(ref))
	}
	parsed, err := orasregistry.ParseReference(ref)
	if err != nil {
		return OCIReference{}, fmt.Errorf("the OCI reference %s is not REGISTRY/REPOSITORY:TAG or REGISTRY/REPOSITORY@sha256:DIGEST: %v", ref, err)
	}
	if parsed.Reference == "" {
		parsed.Reference = "latest"
	}
	if strings.Contains(parsed.Reference, ":") && !strings.HasPrefix(parsed.Reference, "sha256:") {
		return OCIReference{}, fmt.Errorf("the OCI reference %s names a %s digest; only sha256 is read", ref, strings.SplitN(parsed.Reference, ":", 2)[0])
	}
	host := parsed.Registry
	if i := strings.LastIndex(host, ":"); i >= 0 && !strings.HasSuffix(host, "]") {
		host = host[:i]
	}
	host = strings.Trim(host, "[]")
	return OCIReference{Registry: parsed.Registry, Repository: parsed.Repository, Reference: parsed.Reference, PlainHTTP: Loopback(host)}, nil
}

// Version is what src follows, as people name it: a git source's ref (empty for
// the default branch), an OCI source's tag or digest; an index has none.
func (src RemoteSource) Version() string {
	if src.OCI != "" {
		if ref, err := ParseOCIReference(src.OCI); err == nil {
			return ref.Reference
		}
	}
	return src.Ref
}
