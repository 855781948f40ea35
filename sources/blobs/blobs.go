package blobs

import (
	"crypto/sha256"
	"encoding/hex"
	"path/filepath"
	"strings"

	"github.com/skillsync/skillsync/internal/workspacefs"
)

// Store keeps blobs under Dir/sha256/HEX.
type Store struct {
	Dir string
}

// Digest is the sha256: digest of data.
func Digest(data []byte) string {
	sum := sha256.Sum256(data)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// ValidDigest tells whether d is a sha256: digest as Digest writes it.
func ValidDigest(d string) bool {
	h, ok := strings.CutPrefix(d, "sha256:")
	return ok && len(h) == 64 && strings.Trim(h, "0123456789abcdef") == ""
}

// Get is the blob of digest, if the store holds one of at most limit bytes
// that has that digest.
func (s Store) Get(digest string, limit int64) ([]byte, bool) {
	if !ValidDigest(digest) {
		return nil, false
	}
	root, err := (workspacefs.OS{}).Open(s.Dir)
	if err != nil {
		return nil, false
	}
	defer root.Close()
	data, err := root.ReadRegular(s.path(digest), limit)
	if err != nil || Digest(data) != digest {
		return nil, false
	}
	return data, true
}

// Put keeps data, whose digest the caller checked. A copy there already was
// kept by another process, with the same bytes, or found damaged by a read:
// replacing it is right either way. Nothing is synced: a copy a crash cut
// short fails its digest and is fetched again.
func (s Store) Put(data []byte) error {
	if err := (workspacefs.OS{}).MkdirAll(s.Dir, 0o755); err != nil {
		return err
	}
	root, err := (workspacefs.OS{}).Open(s.Dir)
	if err != nil {
		return err
	}
	defer root.Close()
	return workspacefs.WriteWhole(root, s.path(Digest(data)), data)
}

// Path is where the blob of digest is kept, for messages.
func (s Store) Path(digest string) string {
	return filepath.Join(s.Dir, filepath.FromSlash(s.path(digest)))
}

func (s Store) path(digest string) string {
	return "sha256/" + strings.TrimPrefix(digest, "sha256:")
}
