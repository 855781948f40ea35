package wellknown

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"time"

	"github.com/skillsync/skillsync/desired/registry"
	"github.com/skillsync/skillsync/sources/blobs"
)

// SchemaV020 is the $schema of a 0.2.0 index, the only form read: the one whose
// every artifact carries a digest.
const SchemaV020 = "https://schemas.agentskills.io/discovery/0.2.0/schema.json"

// Limits on what is read from the network.
const (
	maxIndexSize   = 16 << 20
	maxSkillMDSize = 16 << 20
	// Timeout bounds each request.
	Timeout = 2 * time.Minute
)

// ErrOffline is what reading the network returns offline.
var ErrOffline = errors.New("offline")

// Index is a discovery index as read.
type Index struct {
	Schema string  `json:"$schema"`
	Skills []Entry `json:"skills"`
}

// Entry is one skill of an index.
type Entry struct {
	Name        string `json:"name"`
	Type        string `json:"type"`
	Description string `json:"description"`
	URL         string `json:"url"`
	Digest      string `json:"digest"`
}

// fetch GETs u, no more than limit bytes of it, with client.
func fetch(ctx context.Context, client *http.Client, u string, limit int64) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("GET %s: %w", registry.RedactRemote(u), unwrapURL(err))
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: %s", registry.RedactRemote(u), resp.Status)
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return nil, fmt.Errorf("GET %s: %w", registry.RedactRemote(u), err)
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("GET %s: more than %d bytes", registry.RedactRemote(u), limit)
	}
	return data, nil
}

// unwrapURL drops the URL a *url.Error repeats, which fetch names already.
func unwrapURL(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

// ReadIndex reads the index at indexURL: its entries, each URL resolved
// against indexURL as RFC 3986 says, and the digest of its bytes. Entries are
// checked (checkEntry) only when a source takes them: one a source leaves out
// does not stop it.
func ReadIndex(ctx context.Context, client *http.Client, indexURL string) (Index, string, error) {
	if err := registry.CheckIndexURL(indexURL); err != nil {
		return Index{}, "", err
	}
	data, err := fetch(ctx, client, indexURL, maxIndexSize)
	if err != nil {
		return Index{}, "", err
	}
	var ix Index
	if err := json.Unmarshal(data, &ix); err != nil {
		return Index{}, "", fmt.Errorf("the index %s is not JSON an index holds: %v", registry.RedactRemote(indexURL), err)
	}
	if ix.Schema != SchemaV020 {
		return Index{}, "", fmt.Errorf("the index %s has $schema %q; skillsync reads %s, whose artifacts carry digests", registry.RedactRemote(indexURL), ix.Schema, SchemaV020)
	}
	base, _ := url.Parse(indexURL)
	for i := range ix.Skills {
		e := &ix.Skills[i]
		// A URL that does not parse is left for checkEntry to refuse, when the
		// entry is taken at all.
		if ref, err := url.Parse(e.URL); err == nil && e.URL != "" {
			e.URL = base.ResolveReference(ref).String()
		}
	}
	return ix, blobs.Digest(data), nil
}

// checkEntry says why e, an entry of an index a source takes, cannot be read.
func checkEntry(e Entry) error {
	switch {
	case !registry.ValidSkillName(e.Name):
		return fmt.Errorf("the index names skill %q, which is not a skill name (a-z, 0-9 and -, at most %d)", e.Name, registry.MaxNameLength)
	case e.Type != registry.ArtifactSkillMD && e.Type != registry.ArtifactArchive:
		return fmt.Errorf("skill %s of the index has type %q; skillsync reads %s and %s", e.Name, e.Type, registry.ArtifactSkillMD, registry.ArtifactArchive)
	case !blobs.ValidDigest(e.Digest):
		return fmt.Errorf("skill %s of the index has digest %q, not sha256: and 64 lowercase hex digits", e.Name, e.Digest)
	}
	if err := registry.CheckArtifactURL(e.URL); err != nil {
		return fmt.Errorf("skill %s of the index: %v", e.Name, err)
	}
	return nil
}
