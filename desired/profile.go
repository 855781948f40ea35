package desired

import (
	"fmt"
	"strings"

	"github.com/skillsync/skillsync/desired/registry"
)

// ProfileFile is where `skillsync profile use` records the active profile.
const ProfileFile = ".skillsync/profile"

// ProfileEnv overrides the profile file and the workspace default.
const ProfileEnv = "SKILLSYNC_PROFILE"

// Profile is the active capability profile and where its name came from.
type Profile struct {
	Name         string // empty for the empty profile
	Source       string // "--profile", "SKILLSYNC_PROFILE", ".skillsync/profile", "spec.profile" or ""
	Capabilities map[string]bool
}

// Label names the profile in messages.
func (p Profile) Label() string {
	if p.Name == "" {
		return "(empty)"
	}
	return p.Name
}

// Missing lists the required capabilities the profile does not announce.
func (p Profile) Missing(required []string) []string {
	var out []string
	for _, r := range required {
		if !p.Capabilities[r] {
			out = append(out, r)
		}
	}
	return out
}

// ProfileSources are the places an active profile name can come from, as read by
// the caller. ProfileFile holds the file's content; empty when it does not exist.
type ProfileSources struct {
	Flag        string
	Env         string
	ProfileFile string
}

// ResolveProfile picks the active profile: the first that is set of the flag, the
// environment, .skillsync/profile and spec.profile, else the empty profile.
func ResolveProfile(reg *registry.Registry, src ProfileSources) (Profile, *registry.Problem) {
	fileName := strings.TrimSpace(src.ProfileFile)
	candidates := []struct {
		name, source string
		pos          registry.Position
	}{
		{src.Flag, "--profile", registry.Position{File: "--profile"}},
		{src.Env, ProfileEnv, registry.Position{File: "$" + ProfileEnv}},
		{fileName, ProfileFile, registry.Position{File: ProfileFile, Line: 1}},
		{reg.Config.Spec.Profile, "spec.profile", reg.DefaultProfileAt()},
	}
	for _, c := range candidates {
		if c.name == "" {
			continue
		}
		return LookupProfile(reg, c.name, c.source, c.pos)
	}
	return Profile{Capabilities: map[string]bool{}}, nil
}

// LookupProfile returns the declared profile called name; source and pos say where
// the name came from, for the problem when no such profile is declared.
func LookupProfile(reg *registry.Registry, name, source string, pos registry.Position) (Profile, *registry.Problem) {
	p, ok := reg.ProfileNamed(name)
	if !ok {
		return Profile{}, &registry.Problem{
			Pos:     pos,
			Message: fmt.Sprintf("profile %q (from %s) is not declared", name, source),
			Hint:    didYouMean(name, reg.ProfileNames()) + "declared profiles: " + orNone(reg.ProfileNames()),
		}
	}
	return Profile{Name: p.Name, Source: source, Capabilities: set(p.Spec.Capabilities)}, nil
}

func didYouMean(name string, known []string) string {
	if best := registry.Closest(name, known); best != "" {
		return fmt.Sprintf("did you mean %q? ", best)
	}
	return ""
}

func orNone(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}
