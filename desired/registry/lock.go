package registry

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
	"slices"
	"strings"

	yaml "go.yaml.in/yaml/v3"
)

// LockName is the lock file, beside skillsync.yaml: what skillsync update
// resolved each source to. It is committed, and every other command reads the
// sources only as it says.
const LockName = "skillsync.lock"

// Lock is skillsync.lock.
type Lock struct {
	Sources []LockedSource `json:"sources"`
}

// LockedSource is one source as skillsync update resolved it: the source as
// skillsync.yaml declared it then, what pinned its content (a git source's
// commit; an index's digest and the artifact of each skill taken), and the
// digest of every skill it takes.
type LockedSource struct {
	Name   string `json:"name"`
	Git    string `json:"git,omitempty"`
	Index  string `json:"index,omitempty"`
	OCI    string `json:"oci,omitempty"`
	Ref    string `json:"ref,omitempty"`
	Path   string `json:"path,omitempty"`
	Commit string `json:"commit,omitempty"`
	// Digest is the index's, as update read it, or the OCI artifact's
	// manifest's.
	Digest string `json:"digest,omitempty"`
	// Artifacts are, by skill, what an index source's skill is read from.
	Artifacts map[string]Artifact `json:"artifacts,omitempty"`
	// Skills maps each skill taken to the digest of its directory (SkillDigest).
	Skills map[string]string `json:"skills"`
	// Registry is the source's registry patterns, as declared then.
	Registry []string `json:"registry,omitempty"`
	// Documents maps each registry file taken, by its path in the source's
	// folder, to the SHA-256 of its bytes.
	Documents map[string]string `json:"documents,omitempty"`
	// Signatures maps each signer the source must be signed by (by its name,
	// RequiredSigner.Name) to the digest of the signature of it that verified:
	// the referrer manifest that holds the Sigstore bundle.
	Signatures map[string]string `json:"signatures,omitempty"`
}

// Artifact is what an index names for one skill: a SKILL.md alone or an
// archive of the skill directory, where it is, and the SHA-256 of its bytes.
type Artifact struct {
	Type   string `json:"type"`
	URL    string `json:"url"`
	Digest string `json:"digest"`
}

// The artifact types of an Agent Skills discovery index.
const (
	ArtifactSkillMD = "skill-md"
	ArtifactArchive = "archive"
)

// lockHeader opens every lock skillsync writes.
const lockHeader = `# skillsync.lock: what "skillsync update" resolved each source in skillsync.yaml
# to. Commit it. Every other command reads the sources only as it says, and
# "skillsync update" is the one way to move it.
`

// Pin is what fixes the source's content: a git source's commit; an OCI
// artifact's manifest digest; for an index, a digest of the artifacts it takes
// (their names, types, URLs and digests), which a change elsewhere in the index
// leaves alone.
func (l LockedSource) Pin() string {
	switch {
	case l.OCI != "":
		return l.Digest
	case l.Index == "":
		return l.Commit
	}
	if len(l.Artifacts) == 0 {
		return ""
	}
	h := sha256.New()
	for _, name := range slices.Sorted(maps.Keys(l.Artifacts)) {
		a := l.Artifacts[name]
		fmt.Fprintf(h, "%s\x00%s\x00%s\x00%s\n", name, a.Type, a.URL, a.Digest)
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}

// PinLabel names the pin in messages: "commit …", "manifest sha256:…", or
// "artifacts sha256:…".
func (l LockedSource) PinLabel() string {
	switch {
	case l.OCI != "":
		return "manifest " + l.Digest
	case l.Index != "":
		return "artifacts " + l.Pin()
	}
	return "commit " + l.Commit
}

// Declares tells whether l was resolved from src as it is declared now.
func (l LockedSource) Declares(src RemoteSource) bool {
	if l.Name != src.Name || l.Git != src.Git || l.Index != src.Index || l.OCI != src.OCI || l.Ref != src.Ref || cleanSourcePath(l.Path) != cleanSourcePath(src.Path) {
		return false
	}
	if !slices.Equal(slices.Sorted(slices.Values(l.Registry)), slices.Sorted(slices.Values(src.Registry))) {
		return false
	}
	if !slices.Equal(slices.Sorted(maps.Keys(l.Signatures)), SignerNames(src.Signers)) {
		return false
	}
	if len(src.Include) == 0 {
		return true
	}
	return slices.Equal(slices.Sorted(maps.Keys(l.Skills)), slices.Sorted(slices.Values(src.Include)))
}

// Named is the locked source called name.
func (l Lock) Named(name string) (LockedSource, bool) {
	for _, s := range l.Sources {
		if s.Name == name {
			return s, true
		}
	}
	return LockedSource{}, false
}

// FormatLock is l as skillsync.lock holds it: sources and skills in name order,
// one fact a line, so that a change reviews as the lines it changes.
func FormatLock(l Lock) []byte {
	sources := slices.Clone(l.Sources)
	slices.SortFunc(sources, func(a, b LockedSource) int { return strings.Compare(a.Name, b.Name) })
	var b bytes.Buffer
	b.WriteString(lockHeader)
	if len(sources) == 0 {
		b.WriteString("sources: []\n")
		return b.Bytes()
	}
	b.WriteString("sources:\n")
	field := func(indent, key, value string) {
		fmt.Fprintf(&b, "%s%s: %s\n", indent, key, lockScalar(value))
	}
	for _, s := range sources {
		field("  - ", "name", s.Name)
		for _, f := range []struct{ key, value string }{{"git", s.Git}, {"index", s.Index}, {"oci", s.OCI}, {"ref", s.Ref}, {"path", s.Path}, {"commit", s.Commit}, {"digest", s.Digest}} {
			if f.value != "" {
				field("    ", f.key, f.value)
			}
		}
		if len(s.Artifacts) > 0 {
			b.WriteString("    artifacts:\n")
			for _, name := range slices.Sorted(maps.Keys(s.Artifacts)) {
				a := s.Artifacts[name]
				fmt.Fprintf(&b, "      %s:\n", lockScalar(name))
				field("        ", "type", a.Type)
				field("        ", "url", a.URL)
				field("        ", "digest", a.Digest)
			}
		}
		if len(s.Registry) > 0 {
			b.WriteString("    registry:\n")
			for _, p := range slices.Sorted(slices.Values(s.Registry)) {
				fmt.Fprintf(&b, "      - %s\n", lockScalar(p))
			}
		}
		if len(s.Documents) > 0 {
			b.WriteString("    documents:\n")
			for _, p := range slices.Sorted(maps.Keys(s.Documents)) {
				fmt.Fprintf(&b, "      %s: %s\n", lockScalar(p), lockScalar(s.Documents[p]))
			}
		}
		if len(s.Signatures) > 0 {
			b.WriteString("    signatures:\n")
			for _, signer := range slices.Sorted(maps.Keys(s.Signatures)) {
				fmt.Fprintf(&b, "      %s: %s\n", lockScalar(signer), lockScalar(s.Signatures[signer]))
			}
		}
		if len(s.Skills) == 0 {
			b.WriteString("    skills: {}\n")
			continue
		}
		b.WriteString("    skills:\n")
		for _, name := range slices.Sorted(maps.Keys(s.Skills)) {
			fmt.Fprintf(&b, "      %s: %s\n", lockScalar(name), lockScalar(s.Skills[name]))
		}
	}
	return b.Bytes()
}

// lockScalar is value as a YAML scalar: plain where that reads back as the same
// string, quoted otherwise.
func lockScalar(value string) string {
	out, err := yaml.Marshal(value)
	if err != nil {
		return fmt.Sprintf("%q", value)
	}
	return strings.TrimSuffix(string(out), "\n")
}

// ParseLock reads skillsync.lock from data; file names it in problems.
func ParseLock(file string, data []byte) (Lock, Problems) {
	var l Lock
	_, docs, ps := parseSource(file, data)
	if len(ps) > 0 {
		// The parser's hints are for registry documents.
		for i := range ps {
			ps[i].Hint = `a lock holds what "skillsync update" wrote; run it to write the lock anew`
		}
		return l, ps
	}
	if len(docs) != 1 {
		return l, Problems{{Pos: Position{File: file, Line: 1}, Message: fmt.Sprintf("expected one document, found %d", len(docs)),
			Hint: `run "skillsync update" to write it again`}}
	}
	if ps := decodeStrict(file, docs[0].root(), &l); len(ps) > 0 {
		return l, ps
	}
	seen := map[string]bool{}
	for i, s := range l.Sources {
		at := docs[0].at("sources", fmt.Sprint(i))
		switch {
		case !isSkillName(s.Name):
			ps = append(ps, Problem{Pos: at.Position(), Message: fmt.Sprintf("source name %q is not a name skillsync.yaml can declare", s.Name), Hint: `run "skillsync update" to write the lock again`})
		case seen[s.Name]:
			ps = append(ps, Problem{Pos: at.Position(), Message: fmt.Sprintf("source %s is locked twice", s.Name), Hint: `run "skillsync update" to write the lock again`})
		case transports(s.Git, s.Index, s.OCI) != 1:
			ps = append(ps, Problem{Pos: at.Position(), Message: fmt.Sprintf("source %s is locked with not one of git, index and oci", s.Name), Hint: `run "skillsync update" to write the lock again`})
		case s.Git != "" && !isCommitID(s.Commit):
			ps = append(ps, Problem{Pos: docs[0].at("sources", fmt.Sprint(i), "commit").Position(), Message: fmt.Sprintf("commit %q of source %s is not a full commit id", s.Commit, s.Name), Hint: `run "skillsync update" to write the lock again`})
		case s.Index != "":
			ps = append(ps, checkLockedIndex(s, docs[0], i)...)
		case s.OCI != "":
			ps = append(ps, checkLockedOCI(s, docs[0], i)...)
		}
		seen[s.Name] = true
		for _, p := range slices.Sorted(maps.Keys(s.Documents)) {
			if _, ok := parseDigest(s.Documents[p]); !ok || !ValidSourcePath(p) || !s.takesDocument(p) {
				ps = append(ps, Problem{Pos: docs[0].at("sources", fmt.Sprint(i), "documents", p).Position(), Message: fmt.Sprintf("document %q of source %s is locked to %q, not a file its registry patterns take and a sha256: digest", p, s.Name, s.Documents[p]),
					Hint: `run "skillsync update" to write the lock again`})
			}
		}
		for _, signer := range slices.Sorted(maps.Keys(s.Signatures)) {
			if _, ok := parseDigest(s.Signatures[signer]); !ok || s.OCI == "" {
				ps = append(ps, Problem{Pos: docs[0].at("sources", fmt.Sprint(i), "signatures", signer).Position(), Message: fmt.Sprintf("the signature by %s of source %s is locked to %q, not the sha256: digest of an OCI artifact's signature", signer, s.Name, s.Signatures[signer]),
					Hint: `run "skillsync update" to write the lock again`})
			}
		}
		for _, name := range slices.Sorted(maps.Keys(s.Skills)) {
			if _, ok := parseDigest(s.Skills[name]); !ok || !isSkillName(name) {
				ps = append(ps, Problem{Pos: docs[0].at("sources", fmt.Sprint(i), "skills", name).Position(), Message: fmt.Sprintf("skill %q of source %s is locked to %q, not a skill name and a sha256: digest", name, s.Name, s.Skills[name]),
					Hint: `run "skillsync update" to write the lock again`})
			}
		}
	}
	return l, ps
}

// checkLockedIndex says what is wrong with the index source s, the i-th of the
// lock doc: its digest, and an artifact for each skill it takes.
func checkLockedIndex(s LockedSource, doc document, i int) Problems {
	var ps Problems
	again := `run "skillsync update" to write the lock again`
	if _, ok := parseDigest(s.Digest); !ok {
		ps = append(ps, Problem{Pos: doc.at("sources", fmt.Sprint(i), "digest").Position(), Message: fmt.Sprintf("digest %q of source %s is not a sha256: digest", s.Digest, s.Name), Hint: again})
	}
	if err := CheckIndexURL(s.Index); err != nil {
		ps = append(ps, Problem{Pos: doc.at("sources", fmt.Sprint(i), "index").Position(), Message: fmt.Sprintf("source %s: %v", s.Name, err), Hint: again})
	}
	for _, name := range slices.Sorted(maps.Keys(s.Skills)) {
		a, ok := s.Artifacts[name]
		_, digestOK := parseDigest(a.Digest)
		if !ok || a.URL == "" || !digestOK || (a.Type != ArtifactSkillMD && a.Type != ArtifactArchive) {
			ps = append(ps, Problem{Pos: doc.at("sources", fmt.Sprint(i), "artifacts").Position(),
				Message: fmt.Sprintf("skill %s of source %s has no artifact with a type (%s or %s), a url and a sha256: digest", name, s.Name, ArtifactSkillMD, ArtifactArchive), Hint: again})
			continue
		}
		// A URL edited into the lock is held to what an index may name: it
		// is fetched, and a user in it would be sent.
		if err := CheckArtifactURL(a.URL); err != nil {
			ps = append(ps, Problem{Pos: doc.at("sources", fmt.Sprint(i), "artifacts", name, "url").Position(), Message: fmt.Sprintf("skill %s of source %s: %v", name, s.Name, err), Hint: again})
		}
	}
	for _, name := range slices.Sorted(maps.Keys(s.Artifacts)) {
		if _, ok := s.Skills[name]; !ok {
			ps = append(ps, Problem{Pos: doc.at("sources", fmt.Sprint(i), "artifacts", name).Position(), Message: fmt.Sprintf("source %s has an artifact for %s, which it does not take", s.Name, name), Hint: again})
		}
	}
	return ps
}

// takesDocument tells whether l's registry patterns take the file p.
func (l LockedSource) takesDocument(p string) bool {
	return RemoteSource{Registry: l.Registry}.TakesDocument(p)
}

// transports counts the addresses given, of a source's git, index and oci: a
// source has one.
func transports(addresses ...string) int {
	n := 0
	for _, v := range addresses {
		if v != "" {
			n++
		}
	}
	return n
}

// checkLockedOCI says what is wrong with the OCI source s, the i-th of the
// lock doc: its reference and its manifest's digest.
func checkLockedOCI(s LockedSource, doc document, i int) Problems {
	var ps Problems
	again := `run "skillsync update" to write the lock again`
	if _, ok := parseDigest(s.Digest); !ok {
		ps = append(ps, Problem{Pos: doc.at("sources", fmt.Sprint(i), "digest").Position(), Message: fmt.Sprintf("digest %q of source %s is not a sha256: digest", s.Digest, s.Name), Hint: again})
	}
	if _, err := ParseOCIReference(s.OCI); err != nil {
		ps = append(ps, Problem{Pos: doc.at("sources", fmt.Sprint(i), "oci").Position(), Message: fmt.Sprintf("source %s: %v", s.Name, err), Hint: again})
	}
	return ps
}

// SkillDigest is how the lock writes the digest of a skill directory.
func SkillDigest(sum [32]byte) string { return "sha256:" + hex.EncodeToString(sum[:]) }

func parseDigest(s string) ([32]byte, bool) {
	var sum [32]byte
	h, ok := strings.CutPrefix(s, "sha256:")
	if !ok || len(h) != 64 || strings.ToLower(h) != h {
		return sum, false
	}
	_, err := hex.Decode(sum[:], []byte(h))
	return sum, err == nil
}

// isCommitID tells whether s is a full git object name, SHA-1 or SHA-256.
func isCommitID(s string) bool {
	if len(s) != 40 && len(s) != 64 {
		return false
	}
	return strings.Trim(s, "0123456789abcdef") == ""
}
