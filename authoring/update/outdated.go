package update

import (
	"fmt"
	"slices"
	"strings"

	"github.com/skillsync/skillsync/desired/registry"
	"golang.org/x/mod/semver"
)

// Checker is a Transport that also lists a source's tags.
type Checker interface {
	Transport
	Tags(src registry.RemoteSource) ([]string, error)
}

// Outdated is how one source stands against its remote now.
type Outdated struct {
	Source, Ref string
	// Locked is the commit the lock pins, empty when the lock does not pin
	// the source as declared; Now is the commit Ref names now.
	Locked, Now string
	// Newer are the remote's release tags above Ref, when Ref is one, newest
	// first.
	Newer []string
}

// Behind tells whether update would move the source, or a newer release is
// there to move Ref to.
func (o Outdated) Behind() bool { return o.Locked != o.Now || len(o.Newer) > 0 }

// CheckOutdated resolves the sources of reg named in names (all when none)
// through t, and says how each stands against what old pins. It changes
// nothing.
func CheckOutdated(reg *registry.Registry, old registry.Lock, names []string, t Checker) ([]Outdated, error) {
	var out []Outdated
	for _, src := range reg.Config.Spec.Sources {
		if len(names) > 0 && !slices.Contains(names, src.Name) {
			continue
		}
		o := Outdated{Source: src.Name, Ref: src.Version()}
		if locked, ok := old.Named(src.Name); ok && locked.Declares(src) {
			o.Locked = locked.Pin()
		}
		// Where the ref is now, whether or not update would take it yet: a
		// commit within the cooldown is reported, and update says when.
		src.MinimumAge = 0
		now, err := t.Resolve(src)
		if err != nil {
			return nil, fmt.Errorf("source %s: %w", src.Name, err)
		}
		o.Now = now.Pin()
		if release(src.Version()) != "" {
			tags, err := t.Tags(src)
			if err != nil {
				return nil, fmt.Errorf("source %s: %w", src.Name, err)
			}
			o.Newer = newerReleases(src.Version(), tags)
		}
		out = append(out, o)
	}
	for _, n := range names {
		if !slices.ContainsFunc(out, func(o Outdated) bool { return o.Source == n }) {
			return nil, fmt.Errorf("%s declares no source %s", reg.ConfigFile, n)
		}
	}
	return out, nil
}

// release is tag as a semantic version (v1.2.3, or 1.2.3 read as v1.2.3), or
// "" when it is none; a pre-release is none, as it is no release to move to.
func release(tag string) string {
	v := tag
	if !strings.HasPrefix(v, "v") {
		v = "v" + v
	}
	if !semver.IsValid(v) || semver.Prerelease(v) != "" {
		return ""
	}
	return v
}

// newerReleases are the tags above ref, newest first.
func newerReleases(ref string, tags []string) []string {
	current := release(ref)
	var newer []string
	for _, t := range tags {
		if v := release(t); v != "" && semver.Compare(v, current) > 0 {
			newer = append(newer, t)
		}
	}
	slices.SortFunc(newer, func(a, b string) int { return semver.Compare(release(b), release(a)) })
	return newer
}
