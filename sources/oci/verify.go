package oci

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/skillsync/skillsync/desired/registry"
	"github.com/skillsync/skillsync/sources/signing"
)

// verifierOf is the verifier of s.
func verifierOf(s registry.RequiredSigner) (*signing.Verifier, error) {
	if s.Key != "" {
		return signing.PublicKeyVerifier(s.KeyData)
	}
	return signing.KeylessVerifier(s.TrustedRootData, s.Identity, s.Issuer)
}

// chooseSignatures is, for each signer src must be signed by, the digest of
// a signature listed that verifies for it, as the manifest manifestDigest of
// ref; a signer none verifies for is an error that says why each failed, and
// what of the listing could not be read.
func chooseSignatures(src registry.RemoteSource, ref registry.OCIReference, manifestDigest string, listed Listing) (map[string]string, error) {
	out := map[string]string{}
	artifact := ref.Registry + "/" + ref.Repository + "@" + manifestDigest
	for _, s := range src.Signers {
		v, err := verifierOf(s)
		if err != nil {
			return nil, fmt.Errorf("the signer %s (required by %s): %w", s.Name(), s.By, err)
		}
		var why []string
		for _, sig := range listed.Signatures {
			err := v.Verify(sig.Bundle, manifestDigest)
			if err == nil {
				out[s.Name()] = sig.Digest
				break
			}
			why = append(why, fmt.Sprintf("%s: %v", sig.Digest, err))
		}
		if _, ok := out[s.Name()]; ok {
			continue
		}
		why = append(why, listed.Unread...)
		if listed.Truncated {
			why = append(why, fmt.Sprintf("only the first %d signatures attached were read", maxSignatures))
		}
		if len(why) == 0 {
			return nil, fmt.Errorf("%s is not signed, and %s requires a signature by %s: nothing of it is taken", artifact, s.By, s.Name())
		}
		return nil, fmt.Errorf("no signature of %s verifies for %s, which %s requires: nothing of it is taken (%s)", artifact, s.Name(), s.By, strings.Join(why, "; "))
	}
	return out, nil
}

// checkSignatures verifies, for each signer src must be signed by, the
// signature at records for it, read through the cache.
func (r *Reader) checkSignatures(ctx context.Context, src registry.RemoteSource, ref registry.OCIReference, at registry.LockedSource) error {
	for _, s := range src.Signers {
		d, ok := at.Signatures[s.Name()]
		if !ok {
			return fmt.Errorf("the lock records no signature by %s, which %s requires; run skillsync update %s", s.Name(), s.By, src.Name)
		}
		memo := s.Name() + "\x00" + d + "\x00" + at.Digest
		r.mu.Lock()
		done := r.verified[memo]
		r.mu.Unlock()
		if done {
			continue
		}
		sig, err := r.Cache.Signature(ctx, ref, at.Digest, d)
		if errors.Is(err, errNotASignature) {
			return fmt.Errorf("the signature %s the lock records for %s: %w; run skillsync update %s", d, s.Name(), err, src.Name)
		}
		if err != nil {
			return err
		}
		if _, err := chooseSignatures(registry.RemoteSource{Signers: []registry.RequiredSigner{s}}, ref, at.Digest, Listing{Signatures: []Signature{sig}}); err != nil {
			return err
		}
		r.mu.Lock()
		if r.verified == nil {
			r.verified = map[string]bool{}
		}
		r.verified[memo] = true
		r.mu.Unlock()
	}
	return nil
}
