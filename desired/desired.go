package desired

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/skillsync/skillsync/clients"
	"github.com/skillsync/skillsync/desired/registry"
	"github.com/skillsync/skillsync/desired/render"
	"github.com/skillsync/skillsync/internal/banner"
)

// SkillFile is the file every skill is written to, inside its own directory.
const SkillFile = "SKILL.md"

// File is one file the workspace should have.
type File struct {
	Path   string // workspace-relative, slash-separated
	Target string
	Skill  string
	Owner  string // capability/<id>, skill/<name>, or target/<name> (GitOwner)
	// Bytes, when set, is the content itself (states built by hand, in tests).
	// Build does not set it: a file is rendered only when it is compared with one
	// on disk (Sum) or written (Content), so a large registry's output is never
	// held, and a file that is created is rendered once.
	Bytes []byte
	from  origin
	// side is the content of a side file a client reads beside SKILL.md, or of a
	// git file; empty for a SKILL.md.
	side string
	// support is the file of a skill directory this is a copy of; nil for
	// anything else.
	support *registry.SupportFile
	// Optional files are written only where no person's file is: a person's file
	// at the path stays, and is no conflict (the target's git files).
	Optional bool
	// gitIgnored says git is to ignore the file (see BuildTargetInGit).
	gitIgnored bool
}

// Supporting says the file is one of a skill directory's files beside its
// SKILL.md, which that SKILL.md's manifest names.
func (f File) Supporting() bool { return f.support != nil }

// Executable says the file is written executable.
func (f File) Executable() bool { return f.support != nil && f.support.Executable }

// origin is the declaration a file is rendered from, in the registry: a
// capability's skill or a workflow skill. A file keeps it rather than the skill
// ready to render, which would be a copy of every skill of a large registry.
type origin struct {
	capability *registry.Capability
	config     *registry.Workspace
	workflow   *registry.Skill
}

func (o origin) name() string {
	if o.capability != nil {
		return o.capability.Spec.Skill.Alias
	}
	return o.workflow.Name
}

func (o origin) owner() string {
	if o.capability != nil {
		return o.capability.Owner()
	}
	return registry.SkillOwner(o.workflow.Name)
}

// KeptFromModel lists, by name, the skills of reg that must be kept from the
// model's own choice: a write or destructive capability's, and a workflow skill
// that asks for it.
func KeptFromModel(reg *registry.Registry) map[string]bool {
	out := map[string]bool{}
	for i := range reg.Capabilities {
		if c := &reg.Capabilities[i]; c.Spec.Skill != nil && (origin{capability: c}).hidden() {
			out[c.Spec.Skill.Alias] = true
		}
	}
	for i := range reg.Skills {
		if s := &reg.Skills[i]; (origin{workflow: s}).hidden() {
			out[s.Name] = true
		}
	}
	return out
}

// hidden says the skill must be kept from the model's own choice.
// sideFile is the skill directory's own copy of the client side file at rel,
// as it is written; ok is false when it has none.
func (o origin) sideFile(rel string) (content string, ok bool) {
	if o.workflow == nil {
		return "", false
	}
	content, ok = o.workflow.SideFiles[rel]
	return content, ok
}

func (o origin) hidden() bool {
	if o.capability != nil {
		return o.capability.Spec.Effect != registry.EffectRead
	}
	return o.workflow.Spec.DisableModelInvocation
}

func (o origin) skill() render.Skill {
	if o.capability != nil {
		return capabilitySkill(o.capability, o.config, o.owner())
	}
	return workflowSkill(o.workflow, o.config, o.owner())
}

// Sum is the SHA-256 of the file's content. A file that cannot be rendered has none
// (the zero digest): it matches nothing on disk, so a plan writes it, and the write
// fails with the error from Content.
func (f File) Sum() [32]byte {
	if f.support != nil {
		return f.support.Sum
	}
	data, err := f.Content()
	if err != nil {
		return [32]byte{}
	}
	return sha256.Sum256(data)
}

// KnownSum is Sum when it is known without rendering or hashing the content.
func (f File) KnownSum() ([32]byte, bool) {
	if f.support != nil && f.Bytes == nil {
		return f.support.Sum, true
	}
	return [32]byte{}, false
}

// Content renders the file.
func (f File) Content() ([]byte, error) {
	if f.Bytes != nil {
		return f.Bytes, nil
	}
	if f.support != nil {
		return f.support.Data, nil
	}
	if f.side != "" {
		return render.SideFile(f.side, f.Owner, f.Path)
	}
	if f.from == (origin{}) {
		return nil, fmt.Errorf("%s: no content", f.Path)
	}
	return render.File(f.Target, f.from.skill(), f.Path)
}

// Withheld is a skill that is not projected into a target, and why.
type Withheld struct {
	Skill  string
	Owner  string
	Target string
	Reason string
	// HandWritten are the people's files that hold the skill's name, where that
	// is why.
	HandWritten []string
}

// State is the desired state: every wanted file by path, and what was held back.
type State struct {
	Profile  string
	Files    map[string]File
	Withheld []Withheld
}

// Build projects every skill of a validated registry into every target it belongs
// to: the files it makes there, each rendered when its content or digest is asked
// for. Call it only with a registry that registry.Validate accepted.
func Build(reg *registry.Registry, profile Profile) State {
	return build(reg, profile, "")
}

// BuildTarget is Build for one target: its files, and what is withheld from it. A
// large workspace is planned a target at a time, so its files are never all held.
func BuildTarget(reg *registry.Registry, profile Profile, target string) State {
	return build(reg, profile, target)
}

func build(reg *registry.Registry, profile Profile, only string) State {
	st := State{Profile: profile.Name, Files: map[string]File{}}
	p := projection{reg: reg, profile: profile, only: only, disabled: set(reg.Config.Spec.Disabled), enabled: set(reg.Targets()),
		allowUnguarded: reg.Config.Spec.UnguardedClients == registry.UnguardedAllow, strict: reg.Config.StrictFrontMatter()}
	for i := range reg.Capabilities {
		c := &reg.Capabilities[i]
		if c.Spec.Skill == nil {
			continue
		}
		from := origin{capability: c, config: &reg.Config}
		p.project(&st, from, c.Spec.Skill.Targets, c.Spec.Skill.RequiredCapabilities)
	}
	for i := range reg.Skills {
		sk := &reg.Skills[i]
		p.project(&st, origin{workflow: sk, config: &reg.Config}, sk.Spec.Targets, sk.Spec.RequiredCapabilities)
	}
	SortWithheld(st.Withheld)
	return st
}

// SortWithheld orders withheld skills by skill, then target, as Build does.
func SortWithheld(ws []Withheld) {
	sort.Slice(ws, func(i, j int) bool {
		a, b := ws[i], ws[j]
		if a.Skill != b.Skill {
			return a.Skill < b.Skill
		}
		return a.Target < b.Target
	})
}

func workflowSkill(sk *registry.Skill, ws *registry.Workspace, owner string) render.Skill {
	return render.Skill{
		Name:                   sk.Name,
		Owner:                  owner,
		SpecKeysOnly:           ws.StrictFrontMatter(),
		Description:            sk.Spec.Description,
		DisableModelInvocation: sk.Spec.DisableModelInvocation,
		UserInvocable:          sk.Spec.UserInvocable,
		Paths:                  sk.Spec.Paths,
		License:                sk.Spec.License,
		Compatibility:          sk.Spec.Compatibility,
		Metadata:               sk.Spec.Metadata,
		AllowedTools:           sk.Spec.AllowedTools,
		ArgumentHint:           sk.Spec.ArgumentHint,
		Model:                  sk.Spec.Model,
		Context:                sk.Spec.Context,
		Agent:                  sk.Spec.Agent,
		Body:                   sk.Body,
		Files:                  manifest(sk.Files),
		Origin:                 skillOrigin(sk),
	}
}

// skillOrigin is where sk's content came from, as its banner says: the
// workspace's file, or the source, the skill's folder in it and its digest as
// the lock records it, with the signers it was verified for. What pins the
// whole source (a commit, a manifest) is left to the lock, so that moving a
// source rewrites only the skills that changed.
func skillOrigin(sk *registry.Skill) string {
	o := sk.Origin
	switch {
	case o == nil && sk.Dir != "":
		return path.Join(sk.Dir, "SKILL.md")
	case o == nil:
		return sk.File()
	}
	from := "git " + o.Git
	switch {
	case o.OCI != "":
		// The repository without its tag: what the tag names is the lock's.
		from = "oci " + o.OCI
		if ref, err := registry.ParseOCIReference(o.OCI); err == nil {
			from = "oci " + ref.Registry + "/" + ref.Repository
		}
	case o.Index != "":
		from = "index " + o.Index
	}
	out := fmt.Sprintf("source %s (%s, %s %s", o.Source, from, o.Dir, o.SkillDigest)
	for _, signer := range slices.Sorted(maps.Keys(o.Signatures)) {
		out += ", signed by " + signer
	}
	return out + ")"
}

// manifest is what a generated SKILL.md says of the supporting files beside it.
func manifest(files []registry.SupportFile) []banner.ManifestEntry {
	if len(files) == 0 {
		return nil
	}
	out := make([]banner.ManifestEntry, len(files))
	for i, f := range files {
		out[i] = banner.ManifestEntry{Path: f.Path, Digest: hex.EncodeToString(f.Sum[:]), Executable: f.Executable}
	}
	return out
}

func capabilitySkill(c *registry.Capability, ws *registry.Workspace, owner string) render.Skill {
	spec := c.Spec
	call := &render.Call{
		CapabilityID: c.ID,
		Title:        spec.Title,
		Effect:       spec.Effect,
		Argument:     spec.Skill.Argument,
	}
	if spec.MCP != nil && spec.MCP.Tool != "" {
		call.MCPServer, call.MCPTool = c.MCPServer(*ws), spec.MCP.Tool
	}
	if spec.CLI != nil {
		call.Command, call.Flag = spec.CLI.Command, spec.CLI.Flag
	}
	return render.Skill{
		Name:                   spec.Skill.Alias,
		Owner:                  owner,
		SpecKeysOnly:           ws.StrictFrontMatter(),
		Description:            c.SkillDescription(),
		ArgumentHint:           "<" + spec.Skill.Argument + ">",
		DisableModelInvocation: origin{capability: c}.hidden(),
		Call:                   call,
		Origin:                 c.File(),
	}
}

// projection is what one build projects every skill with.
type projection struct {
	reg               *registry.Registry
	profile           Profile
	only              string // the one target built, when set
	disabled, enabled map[string]bool
	allowUnguarded    bool
	strict            bool // spec.frontMatter: strict
}

// format is how the skills of target are written.
func (p projection) format(target string) clients.Format {
	f, _ := clients.FormatOf(target)
	if p.strict {
		return f.Strict()
	}
	return f
}

// project writes the skill from declares into every target it belongs to (only
// p.only, when set), or records why it is withheld.
func (p projection) project(st *State, from origin, skillTargets, required []string) {
	name, owner := from.name(), from.owner()
	missing := p.profile.Missing(required)
	targets := p.reg.Targets()
	if len(skillTargets) > 0 {
		targets = unionInOrder(targets, skillTargets)
	}
	for _, target := range targets {
		if p.only != "" && target != p.only {
			continue
		}
		// The most deliberate reason first, and one that names what would change it.
		why := ""
		switch {
		case p.disabled[name]:
			why = "disabled in " + registry.ConfigName
		case !p.enabled[target]:
			why = "target " + target + " is not enabled in " + registry.ConfigName
		case len(skillTargets) > 0 && !slices.Contains(skillTargets, target):
			why = "skill is limited to " + strings.Join(skillTargets, ", ")
		case len(missing) > 0:
			why = fmt.Sprintf("profile %s does not announce %s", p.profile.Label(), strings.Join(missing, ", "))
		case from.hidden() && !p.allowUnguarded:
			if f := p.format(target); !f.Guarded() {
				strictly := ""
				if p.strict {
					strictly = " with the specification's front matter keys only (spec.frontMatter: " + registry.FrontMatterStrict + ")"
				}
				why = fmt.Sprintf("no client reading %s (%s) can keep the model from invoking it%s; set spec.unguardedClients: %s in %s to write it anyway",
					f.Target.Dir, strings.Join(f.Unguarded, ", "), strictly, registry.UnguardedAllow, registry.ConfigName)
			}
		}
		if why != "" {
			st.Withheld = append(st.Withheld, Withheld{Skill: name, Owner: owner, Target: target, Reason: why})
			continue
		}
		dir := path.Join(clients.Dir(target), name)
		file := path.Join(dir, SkillFile)
		st.Files[file] = File{Path: file, Target: target, Skill: name, Owner: owner, from: from}
		if from.workflow != nil {
			for i := range from.workflow.Files {
				sf := &from.workflow.Files[i]
				p := path.Join(dir, sf.Path)
				st.Files[p] = File{Path: p, Target: target, Skill: name, Owner: owner, from: from, support: sf}
			}
		}
		for _, sf := range p.format(target).SideFiles {
			content, own := from.sideFile(sf.Path)
			if !own && !from.hidden() {
				continue
			}
			if !own {
				content = sf.Content
			}
			side := path.Join(dir, sf.Path)
			st.Files[side] = File{Path: side, Target: target, Skill: name, Owner: owner, from: from, side: content}
		}
	}
}

func set(items []string) map[string]bool {
	out := make(map[string]bool, len(items))
	for _, i := range items {
		out[i] = true
	}
	return out
}

func unionInOrder(lists ...[]string) []string {
	seen := map[string]bool{}
	var out []string
	for _, l := range lists {
		for _, x := range l {
			if !seen[x] {
				seen[x] = true
				out = append(out, x)
			}
		}
	}
	return out
}
