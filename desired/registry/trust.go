package registry

import (
	"crypto/sha256"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"path"
	"strings"
	"time"
)

// TrustSpec is what a workspace trusts: where its sources may come from. An
// organisation's policy file says the same, and a source must be allowed by
// both: a workspace can narrow its organisation's policy, never widen it.
type TrustSpec struct {
	// Where sources may come from, as locations (see docs/trust.md):
	// host/path of a git remote or an index (github.com/acme, or
	// github.com/acme/*), REGISTRY/REPOSITORY of an OCI artifact, file:PATH of
	// a repository on this machine. A location is allowed when a pattern
	// matches it, or a folder above it (path.Match). Anywhere when empty.
	Sources []string `json:"sources"`
	// Whom sources must be signed by, by location: a source from a location
	// a rule lists must be an OCI artifact signed by the rule's signer, as
	// well as by its own verify.
	Signers []SignerRule `json:"signers"`
	// Whether the skills MCP servers publish (spec.mcpSources[].publishedSkills)
	// may be taken; a server's tools are capabilities either way. Yes when not
	// set.
	MCPSkills *bool `json:"mcpSkills"`
	// How old the commit a git source's moving ref (a tag or a branch, not a
	// commit id) names must be before skillsync update takes it, as a Go
	// duration (168h); a cooldown in which a compromised release can be
	// found and pulled. None when not set.
	MinimumAge string `json:"minimumAge"`
}

// TooRecentError is a commit that a source's moving ref names and that is
// younger than the source's minimum age: update does not take it yet.
type TooRecentError struct {
	Ref, Commit string // Ref as messages name it: "ref v2", "the default branch"
	Made        time.Time
	Age         time.Duration
	MinimumAge  time.Duration
	By          string // who requires the minimum age
}

func (e *TooRecentError) Error() string {
	return fmt.Sprintf("%s names commit %s, made %s ago (%s), and %s takes only commits at least %s old: it can be taken from %s, or set ref to an older commit or tag",
		e.Ref, e.Commit, e.Age.Round(time.Minute), e.Made.UTC().Format(time.RFC3339), e.By, e.MinimumAge, e.Made.Add(e.MinimumAge).UTC().Format(time.RFC3339))
}

// minimumAge is t's minimum age; what is wrong with it is a message.
func (t TrustSpec) minimumAge() (time.Duration, string) {
	if t.MinimumAge == "" {
		return 0, ""
	}
	d, err := time.ParseDuration(t.MinimumAge)
	if err != nil || d < 0 {
		return 0, fmt.Sprintf("minimumAge %q is not a duration such as 72h or 168h", t.MinimumAge)
	}
	return d, ""
}

// TakesMCPSkills tells whether t lets a workspace take the skills MCP
// servers publish.
func (t TrustSpec) TakesMCPSkills() bool { return t.MCPSkills == nil || *t.MCPSkills }

// PolicyName is the organisation's policy file, in the user's configuration
// directory (or where $SKILLSYNC_POLICY names it).
const PolicyName = "policy.yaml"

// Policy is an organisation's policy file: kind Policy, its spec a
// TrustSpec.
type Policy struct {
	APIVersion string    `json:"apiVersion" jsonschema:"required"`
	Kind       string    `json:"kind" jsonschema:"required"`
	Spec       TrustSpec `json:"spec"`
	// File is where the policy was read, for messages.
	File string `json:"-"`
	// signers are Spec.Signers, their files read.
	signers []boundRule
	// sum digests what the policy was read from: its file and its signers'.
	sum [32]byte
}

// Sum is the digest of what the policy was read from, its file and the files
// its signers name: a pass that answers from what an earlier one found holds
// only while the policy does.
func (p *Policy) Sum() [32]byte { return p.sum }

// ParsePolicy reads an organisation's policy file, file naming it; read reads
// the files its signers name, relative to the policy's folder.
func ParsePolicy(file string, data []byte, read func(name string) ([]byte, error)) (Policy, Problems) {
	h := sha256.New()
	fmt.Fprintf(h, "%q\x00%d\x00", file, len(data))
	h.Write(data)
	p, ps := parsePolicy(file, data, func(name string) ([]byte, error) {
		data, err := read(name)
		fmt.Fprintf(h, "%q\x00%d\x00%v\x00", name, len(data), err)
		h.Write(data)
		return data, err
	})
	h.Sum(p.sum[:0])
	return p, ps
}

// parsePolicy is ParsePolicy but for the digest of what it reads.
func parsePolicy(file string, data []byte, read func(name string) ([]byte, error)) (Policy, Problems) {
	var p Policy
	_, docs, ps := parseSource(file, data)
	if len(ps) > 0 {
		return p, ps
	}
	if len(docs) != 1 {
		return p, Problems{{Pos: Position{File: file, Line: 1}, Message: fmt.Sprintf("expected one Policy document, found %d", len(docs)), Hint: "a policy file holds one document of kind Policy"}}
	}
	if ps := decodeStrict(file, docs[0].root(), &p); len(ps) > 0 {
		return p, ps
	}
	switch {
	case p.APIVersion != APIVersion:
		ps = append(ps, Problem{Pos: docs[0].at("apiVersion").Position(), Message: fmt.Sprintf("apiVersion %q is not supported", p.APIVersion), Hint: "write apiVersion: " + APIVersion})
	case p.Kind != "Policy":
		ps = append(ps, Problem{Pos: docs[0].at("kind").Position(), Message: fmt.Sprintf("kind %q where Policy was expected", p.Kind), Hint: "write kind: Policy"})
	}
	if len(p.Spec.Sources) == 0 {
		ps = append(ps, Problem{Pos: docs[0].at("spec").Position(), Message: "the policy lists no location sources may come from",
			Hint: "list where sources may come from under spec.sources; to allow none, list a location no source has, such as none.invalid"})
	}
	for i, pattern := range p.Spec.Sources {
		if _, err := path.Match(pattern, ""); err != nil || pattern == "" {
			ps = append(ps, Problem{Pos: docs[0].at("spec", "sources", fmt.Sprint(i)).Position(), Message: fmt.Sprintf("%q is not a pattern of source locations", pattern), Hint: "write host/path, such as github.com/acme or registry.example.com/acme/*"})
		}
	}
	p.File = file
	if _, msg := p.Spec.minimumAge(); msg != "" {
		ps = append(ps, Problem{Pos: docs[0].at("spec", "minimumAge").Position(), Message: msg, Hint: "write a Go duration: hours, minutes or seconds"})
	}
	by := "the organisation's policy (" + file + ")"
	for i, rule := range p.Spec.Signers {
		at := docs[0].at("spec", "signers", fmt.Sprint(i)).Position()
		signer, msg := checkRule(rule, read, "")
		if msg != "" {
			ps = append(ps, Problem{Pos: at, Message: "signer: " + msg, Hint: "see docs/trust.md for how a policy names a signer"})
			continue
		}
		signer.By = by
		p.signers = append(p.signers, boundRule{rule, signer})
	}
	return p, ps
}

// checkRule checks rule and reads its signer's files, relative to dir; what
// is wrong is a message.
func checkRule(rule SignerRule, read func(name string) ([]byte, error), dir string) (RequiredSigner, string) {
	if len(rule.Sources) == 0 {
		return RequiredSigner{}, "the rule lists no locations under sources"
	}
	for _, pattern := range rule.Sources {
		if _, err := path.Match(pattern, ""); err != nil || pattern == "" {
			return RequiredSigner{}, fmt.Sprintf("%q is not a pattern of source locations", pattern)
		}
	}
	if msg := rule.signer().check(); msg != "" {
		return RequiredSigner{}, msg
	}
	return rule.signer().read(dir, read)
}

// Location is where src comes from, as trust patterns match it: host/path of
// a git remote (no scheme, user or .git) or an index URL, REGISTRY/REPOSITORY
// of an OCI artifact, file:PATH for a repository on this machine. It is
// written one way however the source spells it (canonicalLocation).
func Location(src RemoteSource) string {
	switch {
	case src.OCI != "":
		if ref, err := ParseOCIReference(src.OCI); err == nil {
			return canonicalLocation(ref.Registry + "/" + ref.Repository)
		}
		return src.OCI
	case src.Index != "":
		if u, err := url.Parse(src.Index); err == nil {
			return canonicalLocation(u.Host + u.Path)
		}
		return src.Index
	}
	remote := src.Git
	if scpLike.MatchString(remote) && !strings.Contains(remote, "://") {
		_, hostPath, _ := strings.Cut(remote, "@")
		host, p, _ := strings.Cut(hostPath, ":")
		return canonicalLocation(host + "/" + strings.TrimSuffix(strings.Trim(p, "/"), ".git"))
	}
	u, err := url.Parse(remote)
	if err != nil {
		return remote
	}
	if u.Scheme == "file" {
		return "file:" + u.Path
	}
	return canonicalLocation(u.Host + "/" + strings.TrimSuffix(strings.Trim(u.Path, "/"), ".git"))
}

// canonicalLocation is host/path (or a pattern of them) as every spelling of
// it reads: in lower case, as hosts and registries compare names; the host
// without a port (one host is one place, whatever service of it is reached),
// a trailing dot or IPv6 brackets, and an IPv4 address written as IPv6 as
// IPv4. A file: location is a path of this machine and is kept as it is.
func canonicalLocation(location string) string {
	if strings.HasPrefix(location, "file:") {
		return location
	}
	host, rest, found := strings.Cut(strings.ToLower(location), "/")
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.Trim(host, "[]"), ".")
	if addr, err := netip.ParseAddr(host); err == nil {
		host = addr.Unmap().WithZone("").String()
	}
	if !found {
		return host
	}
	return host + "/" + rest
}

// oddAddress tells whether the host of location is a number that is not an
// IPv4 or IPv6 address as netip writes one (10.1, 167772161, 0x0a.0.0.1):
// git's and the registries' resolvers read such forms as addresses that a
// pattern written the usual way would not match.
func oddAddress(location string) bool {
	if strings.HasPrefix(location, "file:") {
		return false
	}
	host, _, _ := strings.Cut(location, "/")
	labels := strings.Split(host, ".")
	last := labels[len(labels)-1]
	if last == "" || !(last[0] >= '0' && last[0] <= '9') {
		return false
	}
	_, err := netip.ParseAddr(host)
	return err != nil
}

// Allows tells whether t lets a source come from location.
func (t TrustSpec) Allows(location string) bool {
	if len(t.Sources) == 0 {
		return true
	}
	for _, pattern := range t.Sources {
		pattern = canonicalLocation(strings.TrimSuffix(pattern, "/"))
		// The location, and every folder above it: github.com/acme allows
		// github.com/acme/skills.
		for at := location; at != "." && at != "/" && at != ""; at = path.Dir(at) {
			if ok, _ := path.Match(pattern, at); ok {
				return true
			}
		}
	}
	return false
}

// PolicedReader is a SourceReader under an organisation's policy: a load
// through one reads the policy again, and checks every source against it,
// before reading any. A policy that cannot be read is an error: Problems for
// one that does not parse.
type PolicedReader interface {
	SourceReader
	Policy() (*Policy, error)
}

// Untrusted are, at each source's line, the sources that policy (the
// organisation's, when not nil) or skillsync.yaml's own spec.trust does not
// let the workspace take.
func (reg *Registry) Untrusted(policy *Policy) Problems {
	var out Problems
	for i, src := range reg.Config.Spec.Sources {
		at := itemAt(reg.config, i, "spec", "sources").Position()
		location := Location(src)
		switch {
		case oddAddress(location):
			out = append(out, Problem{Pos: at, Message: fmt.Sprintf("source %s names the host of %s as a number that is no address written the usual way", src.Name, location),
				Hint: "write an IPv4 address as four numbers a.b.c.d, or name the host"})
		case policy != nil && !policy.Spec.Allows(location):
			out = append(out, Problem{Pos: at, Message: fmt.Sprintf("source %s comes from %s, which the organisation's policy (%s) does not allow", src.Name, location, policy.File),
				Hint: "take it from a place the policy's spec.sources allows; skillsync.yaml can narrow the policy, not widen it"})
		case reg.Config.Spec.Trust != nil && !reg.Config.Spec.Trust.Allows(location):
			out = append(out, Problem{Pos: at, Message: fmt.Sprintf("source %s comes from %s, which spec.trust.sources does not allow", src.Name, location),
				Hint: "add its location to spec.trust.sources if it is to be trusted, or take the skills from an allowed source"})
		}
	}
	return out
}

// ApplyTrust reads into each source of reg what trust requires of it: the
// signers it must be signed by (its verify, and those spec.trust and policy
// require of its location), reading the workspace's files with read, and the
// minimum age of what its moving ref names (the longer of spec.trust's and
// policy's). A signer whose files are wrong, and a source that must be signed
// but is not an OCI artifact, are problems at their lines.
func (reg *Registry) ApplyTrust(policy *Policy, read func(file string) ([]byte, error)) Problems {
	var out Problems
	var age time.Duration
	var ageBy string
	if t := reg.Config.Spec.Trust; t != nil {
		d, msg := t.minimumAge()
		if msg != "" {
			out = append(out, Problem{Pos: reg.config.at("spec", "trust", "minimumAge").Position(), Message: msg, Hint: "write a Go duration: hours, minutes or seconds"})
		}
		age, ageBy = d, "spec.trust"
	}
	if policy != nil {
		if d, _ := policy.Spec.minimumAge(); d > age {
			age, ageBy = d, "the organisation's policy ("+policy.File+")"
		}
	}
	dir := path.Dir(reg.ConfigFile)
	var rules []boundRule
	if t := reg.Config.Spec.Trust; t != nil {
		for i, rule := range t.Signers {
			signer, msg := checkRule(rule, read, dir)
			if msg != "" {
				out = append(out, Problem{Pos: reg.config.at("spec", "trust", "signers", fmt.Sprint(i)).Position(), Message: "signer: " + msg, Hint: "see docs/trust.md for how spec.trust names a signer"})
				continue
			}
			signer.By = "spec.trust"
			rules = append(rules, boundRule{rule, signer})
		}
	}
	if policy != nil {
		rules = append(rules, policy.signers...)
	}
	for i := range reg.Config.Spec.Sources {
		src := &reg.Config.Spec.Sources[i]
		var own []RequiredSigner
		if src.Verify != nil {
			at := reg.config.at("spec", "sources", fmt.Sprint(i), "verify").Position()
			msg := src.Verify.check()
			var signer RequiredSigner
			if msg == "" {
				signer, msg = src.Verify.read(dir, read)
			}
			if msg != "" {
				out = append(out, Problem{Pos: at, Message: fmt.Sprintf("verify of source %s: %s", src.Name, msg), Hint: "see docs/trust.md for how a source names its signer"})
				continue
			}
			signer.By = "its verify"
			own = append(own, signer)
		}
		src.Signers = signersFor(*src, own, rules)
		if src.Git != "" && age > 0 {
			src.MinimumAge, src.MinimumAgeBy = age, ageBy
		}
		if len(src.Signers) > 0 && src.OCI == "" {
			out = append(out, Problem{Pos: itemAt(reg.config, i, "spec", "sources").Position(),
				Message: fmt.Sprintf("source %s must be signed (%s requires it), and %s carries no signature skillsync can verify", src.Name, joinBy(src.Signers), sourceKind(*src)),
				Hint:    "take its skills from an OCI artifact published with skillsync publish --sign"})
		}
	}
	return out
}
