package registry

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"path"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/skillsync/skillsync/clients"
	"github.com/skillsync/skillsync/desired/render"
	"github.com/skillsync/skillsync/internal/workspacefs"
)

// MaxNameLength and MaxDescriptionLength are the strictest limits every target
// client accepts (the Agent Skills specification, Zed).
const (
	MaxNameLength        = 64
	MaxDescriptionLength = 1024
)

// The patterns of names. They read alike as Go regular expressions and as the
// ECMA-262 ones of JSON Schema, so the generated schemas (schema/) carry them as
// they are; names.go matches them.
const (
	SkillNamePattern    = `^[a-z0-9]+(-[a-z0-9]+)*$`
	CapabilityIDPattern = `^[A-Za-z0-9]+([._-][A-Za-z0-9]+)*$`
	DottedNamePattern   = `^[A-Za-z0-9][A-Za-z0-9_-]*(\.[A-Za-z0-9][A-Za-z0-9_-]*)+$`
	MCPNamePattern      = `^[A-Za-z0-9_-]{1,64}$`
	// MCPToolNamePattern is what the MCP specification allows a tool's name.
	MCPToolNamePattern = `^[A-Za-z0-9_.-]{1,128}$`
)

var (
	effects               = []string{EffectRead, EffectWrite, EffectDestructive}
	skillNameRequirements = "lowercase letters, digits and single hyphens, at most 64 characters, like intent or propose-intent"
)

// Effects lists the effects a capability may declare.
func Effects() []string { return slices.Clone(effects) }

// Validate checks every rule of the registry at once and returns all problems found.
// It reads nothing from disk. Documents that did not decode are not checked again:
// their decoding problems already say what is wrong with them.
func Validate(reg *Registry) Problems { return validate(reg, nil) }

// validate is Validate taking from memo what the checks of a document that need no
// other document found in an earlier load, when the workspace context is the same,
// and leaving in it what this load found; a nil memo checks everything.
func validate(reg *Registry, memo *checkMemo) Problems {
	v := validator{reg: reg}
	v.workspace()
	v.mcpSources()
	v.profiles()
	v.checks = memo.begin(v.context(), len(reg.Capabilities)+len(reg.Skills))
	defer v.checks.end()
	v.taken = v.checks.taken
	var unchecked []Capability
	for _, c := range reg.Capabilities {
		if !v.checks.holds(c.doc) {
			unchecked = append(unchecked, c)
		}
	}
	v.schemaErrors = checkSchemas(unchecked)
	var recorded []*Capability
	for i := range reg.Capabilities {
		c := &reg.Capabilities[i]
		if reg.FromSnapshot(*c) {
			recorded = append(recorded, c)
			continue
		}
		v.capability(c)
	}
	var published []*Skill
	for i := range reg.Skills {
		s := &reg.Skills[i]
		if reg.isSnapshot(s.doc.file()) {
			published = append(published, s)
			continue
		}
		v.skill(s)
	}
	// What a refresh recorded claims its names after what people declared, so
	// that a name both hold is reported at the selector that made the recorded
	// skill: that is what changes, the person's file being theirs.
	for _, c := range recorded {
		v.capability(c)
	}
	for _, s := range published {
		v.skill(s)
	}
	return v.problems.Sorted()
}

// claim is a declaration that holds a name: a capability by its id or its alias,
// or a skill. Its owner and place are worked out only when another claims the
// same name.
type claim struct {
	capability *Capability
	skill      *Skill
	alias      bool
}

// what names the kind of skill name cl claims, as messages do.
func (cl claim) what() string {
	if cl.alias {
		return "alias"
	}
	return "skill name"
}

func (cl claim) owner() string {
	if cl.skill != nil {
		return SkillOwner(cl.skill.Name)
	}
	return cl.capability.Owner()
}

func (v *validator) claimAt(cl claim) place {
	switch {
	case cl.skill != nil:
		return v.skillNameAt(*cl.skill)
	case cl.alias:
		return v.skillAt(*cl.capability, "alias", "spec", "skill", "alias")
	}
	return cl.capability.doc.at("metadata", "name")
}

// claims are the names declarations hold: capability ids, and skill names, which
// aliases share, checked for duplicates apart.
type claims struct {
	ids, names map[string]claim
}

func newClaims(size int) claims {
	return claims{ids: make(map[string]claim, size), names: make(map[string]claim, size)}
}

type validator struct {
	reg       *Registry
	doc       document // the document being checked
	problems  Problems
	taken     claims
	clashed   map[string]bool // names whose first claim was told of a later one
	announced map[string]bool
	// schemaErrors holds what checkSchema found, by the schema's JSON text.
	schemaErrors map[string][]schemaError
	// argumentInputs holds what argumentInput decoded, by the schema's JSON
	// text and the argument.
	argumentInputs map[string]argumentInput
	// checks holds what this load and earlier ones, under the same context,
	// found of each document's own checks.
	checks memoPass
}

func (v *validator) add(pos place, hint, format string, args ...any) {
	if v.reg.malformed[v.doc] {
		return
	}
	p := Problem{Pos: pos.Position(), Message: fmt.Sprintf(format, args...), Hint: hint}
	if r := pos.recorded; r != nil {
		p.Message = fmt.Sprintf("%s (recorded in %s): %s", r.id, r.snapshot, p.Message)
		if r.pattern {
			p.Hint += fmt.Sprintf("; a selector of its own naming %s can give its alias and argument", r.tool)
		}
		p.Hint += r.hint
		p.snapshot = r.snapshot
	}
	v.problems = append(v.problems, p)
}

// skillNameAt is where a problem with the name of s points: its document's
// name, or, for a skill a server published, the publishedSkills of its source in
// skillsync.yaml, where a person leaves it out.
func (v *validator) skillNameAt(s Skill) place {
	for i, src := range v.reg.Config.Spec.MCPSources {
		if p, ok := v.reg.SnapshotPath(src); ok && p == s.doc.file() && src.PublishedSkills != nil {
			at := v.reg.config.at("spec", "mcpSources", strconv.Itoa(i), "publishedSkills")
			at.recorded = &recording{id: SkillOwner(s.Name), snapshot: p, hint: "; or list " + s.Name + " under its exclude"}
			return at
		}
	}
	return s.nameAt()
}

// skillAt is where a problem with the skill of c points: keys in its document,
// or, for a capability a refresh recorded, the skills: selector in skillsync.yaml
// that made the skill, since that is where a person changes it: at field (alias
// or argument) when the selector gives it, else at its tool.
func (v *validator) skillAt(c Capability, field string, keys ...string) place {
	i, j, ok := v.reg.selectorOf(c)
	if !ok {
		return c.doc.at(keys...)
	}
	sel := v.reg.Config.Spec.MCPSources[i].Skills[j]
	key := "tool"
	if field == "alias" && sel.Alias != "" || field == "argument" && sel.Argument != "" {
		key = field
	}
	p := v.reg.config.at("spec", "mcpSources", strconv.Itoa(i), "skills", strconv.Itoa(j), key)
	p.recorded = &recording{id: c.ID, tool: c.Spec.MCP.Tool, snapshot: c.doc.file(), pattern: IsToolPattern(sel.Tool)}
	return p
}

// Targets returns the targets the workspace enables; the default ones when none
// are listed.
func (r *Registry) Targets() []string {
	if len(r.Config.Spec.Targets) == 0 {
		return clients.DefaultTargetNames()
	}
	return r.Config.Spec.Targets
}

func (v *validator) workspace() {
	cfg := v.reg.config
	v.doc = cfg
	seen := map[string]bool{}
	for i, t := range v.reg.Config.Spec.Targets {
		pos := itemAt(cfg, i, "spec", "targets")
		if !contains(clients.TargetNames(), t) {
			v.add(pos, suggest(t, clients.TargetNames(), "known targets: "+strings.Join(clients.TargetNames(), ", ")), "unknown target %q", t)
		}
		if seen[t] {
			v.add(pos, "list each target once", "target %q listed twice", t)
		}
		seen[t] = true
	}
	if v.reg.User() {
		personal := clients.PersonalTargetNames()
		for i, t := range v.reg.Targets() {
			if contains(clients.TargetNames(), t) && !contains(personal, t) {
				v.add(itemAt(cfg, i, "spec", "targets"), "in the user workspace enable targets a client reads in the home directory: "+strings.Join(personal, ", "),
					"no client reads skills from ~/%s, the directory of target %q, so the user workspace cannot enable it", clients.Dir(t), t)
			}
		}
	}
	if ws := v.reg.Config.Spec.MCP; ws != nil && ws.Server != "" && !isMCPName(ws.Server) {
		v.add(cfg.at("spec", "mcp", "server"), "use letters, digits, _ and -", "MCP server name %q is not valid", ws.Server)
	}
	switch u := v.reg.Config.Spec.UnguardedClients; u {
	case "", UnguardedWithhold, UnguardedAllow:
	default:
		v.add(cfg.at("spec", "unguardedClients"), "use "+UnguardedWithhold+" (the default) or "+UnguardedAllow, "unguardedClients %q is not valid", u)
	}
	switch f := v.reg.Config.Spec.FrontMatter; f {
	case "", FrontMatterClients, FrontMatterStrict:
	default:
		v.add(cfg.at("spec", "frontMatter"), suggest(f, []string{FrontMatterClients, FrontMatterStrict}, "use "+FrontMatterClients+" (the default) or "+FrontMatterStrict), "frontMatter %q is not valid", f)
	}
	switch g := v.reg.Config.Spec.GeneratedFiles; g {
	case "", GeneratedCommit, GeneratedIgnore:
	default:
		v.add(cfg.at("spec", "generatedFiles"), suggest(g, []string{GeneratedCommit, GeneratedIgnore}, "use "+GeneratedCommit+" (the default) or "+GeneratedIgnore), "generatedFiles %q is not valid", g)
	}
	for i, n := range v.reg.Config.Spec.ReservedNames {
		if n == "" {
			v.add(itemAt(cfg, i, "spec", "reservedNames"), "remove the empty entry", "reserved name is empty")
		}
	}
	if p := v.reg.Config.Spec.Profile; p != "" {
		if _, ok := v.reg.ProfileNamed(p); !ok {
			v.add(cfg.at("spec", "profile"), suggest(p, v.reg.ProfileNames(), "declare a Profile with that name or fix spec.profile"), "default profile %q is not declared", p)
		}
	}
}

func (v *validator) profiles() {
	v.announced = map[string]bool{}
	seen := map[string]place{}
	for _, p := range v.reg.Profiles {
		v.doc = p.doc
		pos := p.doc.at("metadata", "name")
		switch {
		case p.Name == "":
			v.add(pos, "give the profile a name under metadata.name", "profile has no name")
		case !isSkillName(p.Name) || len(p.Name) > MaxNameLength:
			v.add(pos, "use "+skillNameRequirements, "profile name %q is not valid", p.Name)
		}
		if first, dup := seen[p.Name]; dup && p.Name != "" {
			v.add(pos, "profile names must be unique", "profile %q is also declared at %s", p.Name, first.Position())
		}
		seen[p.Name] = pos
		for i, c := range p.Spec.Capabilities {
			if !isDottedName(c) {
				v.add(itemAt(p.doc, i, "spec", "capabilities"), "client capabilities are dotted names like markdown.codeBlock.echarts-fulldata", "profile capability %q is not a dotted name", c)
			}
			v.announced[c] = true
		}
	}
}

func (v *validator) capability(c *Capability) {
	v.doc = c.doc
	ch, known := v.checks.lookup(c.doc)
	if !known {
		ch = v.checkCapability(*c)
	}
	v.checks.keep(c.doc, ch)
	if ch.claimID {
		// Each declaration of an id is reported at the one before it.
		if first, dup := v.taken.ids[c.ID]; dup {
			v.add(c.doc.at("metadata", "name"), "capability ids must be unique", "capability id %q is also declared at %s", c.ID, v.claimAt(first).Position())
		}
		v.taken.ids[c.ID] = claim{capability: c}
	}
	v.problems = append(v.problems, ch.beforeName...)
	if ch.claimName {
		v.claimName(c.Spec.Skill.Alias, claim{capability: c, alias: true}, "alias")
	}
	v.problems = append(v.problems, ch.afterName...)
}

// checkCapability runs the checks of c that need no other declaration.
func (v *validator) checkCapability(c Capability) checked {
	var ch checked
	d := c.doc
	outer := v.problems
	v.problems = nil
	switch {
	case c.ID == "":
		v.add(d.at("metadata"), "set metadata.name to the capability id, like intents.propose", "capability has no id")
	case !isCapabilityID(c.ID):
		v.add(d.at("metadata", "name"), "ids are letters and digits separated by single dots, hyphens or underscores", "capability id %q is not valid", c.ID)
	default:
		ch.claimID = true
	}
	spec := c.Spec
	switch n := utf8.RuneCountInString(spec.Title); {
	case strings.TrimSpace(spec.Title) == "":
		v.add(d.at("spec"), "add spec.title: the capability's own name, used as the skill description", "capability %s has no title", c.ID)
	case !v.oneLine(d.at("spec", "title"), "title", spec.Title):
	case n > MaxDescriptionLength:
		v.add(d.at("spec", "title"), fmt.Sprintf("shorten it to %d characters; clients reject longer descriptions", MaxDescriptionLength), "title is %d characters long", n)
	}
	if n := utf8.RuneCountInString(spec.Description); spec.Description != "" && v.oneLine(d.at("spec", "description"), "description", spec.Description) {
		switch {
		case strings.TrimSpace(spec.Description) == "":
			v.add(d.at("spec", "description"), "write what the capability does, or leave description out to use the title", "description is blank")
		case n > MaxDescriptionLength:
			v.add(d.at("spec", "description"), fmt.Sprintf("shorten it to %d characters; clients reject longer descriptions", MaxDescriptionLength), "description is %d characters long", n)
		}
	}
	v.inputSchema(c)
	if !contains(effects, spec.Effect) {
		v.add(d.at("spec", "effect"), "effect is one of read, write, destructive", "effect %q is not valid", spec.Effect)
	}
	if spec.MCP != nil {
		if spec.MCP.Tool == "" {
			v.add(d.at("spec", "mcp"), "name the tool, like {tool: intents_propose}", "mcp has no tool")
		} else if !isMCPToolName(spec.MCP.Tool) {
			v.add(d.at("spec", "mcp", "tool"), mcpToolNameRule, "MCP tool name %q is not valid", spec.MCP.Tool)
		}
		if spec.MCP.Server != "" && !isMCPName(spec.MCP.Server) {
			v.add(d.at("spec", "mcp", "server"), "MCP server names use letters, digits, _ and -", "MCP server name %q is not valid", spec.MCP.Server)
		}
		if c.MCPServer(v.reg.Config) == "" {
			v.add(d.at("spec", "mcp"), "set spec.mcp.server here or in "+ConfigName, "capability %s names an MCP tool but no server", c.ID)
		}
	}
	if spec.CLI != nil {
		if len(spec.CLI.Command) == 0 {
			v.add(d.at("spec", "cli"), "list the program and its subcommands, like [majordomus, intents, propose]", "cli has no command")
		}
		for i, w := range spec.CLI.Command {
			if w == "" || !singleLineText(w) || strings.ContainsAny(w, "`<>") {
				v.add(itemAt(d, i, "spec", "cli", "command"), "each word is one argument without line breaks, control characters, backquotes, < or >", "cli command word %q is not valid", w)
			}
		}
		if f := spec.CLI.Flag; f != "" && (!strings.HasPrefix(f, "-") || strings.ContainsAny(f, " `<>") || !singleLineText(f)) {
			v.add(d.at("spec", "cli", "flag"), "write the flag as it is typed, like --statement", "cli flag %q is not valid", f)
		}
	}
	sk := spec.Skill
	if sk == nil {
		ch.beforeName, v.problems = v.problems, outer
		return ch
	}
	ch.claimName = v.checkName(sk.Alias, v.skillAt(c, "alias", "spec", "skill", "alias"), "alias")
	ch.beforeName, v.problems = v.problems, nil
	if c.Spec.MCP == nil && c.Spec.CLI == nil {
		v.add(d.at("spec", "skill"), "add spec.mcp.tool or spec.cli.command so the agent can reach it", "capability %s has a skill but no way to call it", c.ID)
	}
	v.argument(c)
	v.representable(c)
	v.targetList(d, sk.Targets, "spec", "skill", "targets")
	v.required(d, sk.RequiredCapabilities, "spec", "skill", "requiredCapabilities")
	ch.afterName, v.problems = v.problems, outer
	return ch
}

func (v *validator) argument(c Capability) {
	d, arg := c.doc, c.Spec.Skill.Argument
	pos := v.skillAt(c, "argument", "spec", "skill", "argument")
	recorded := pos.recorded != nil
	if arg == "" {
		// A refresh leaves the argument out when the tool's input has no one
		// property to derive it from; why is in the input it recorded.
		why := ""
		if _, err := SkillArgument(c.Spec.Input); recorded && err != nil {
			why = ": " + err.Error()
		}
		v.add(v.skillAt(c, "argument", "spec", "skill"), "name the input property the typed text fills, like argument: statement", "skill has no argument%s", why)
		return
	}
	if !v.oneLine(pos, "argument", arg) {
		return
	}
	if strings.ContainsAny(arg, "`<>") {
		v.add(pos, "the argument's name is written into the skill as `name` and <name>; rename the property", "argument %q holds a backquote, < or >", arg)
		return
	}
	in := v.argumentInput(c.Spec.Input, arg)
	switch typ := in.typ; {
	case !in.declared:
		fallback := "declare it under spec.input.properties"
		if recorded {
			fallback = "name a string property of the tool's input"
		}
		v.add(pos, suggest(arg, in.properties, fallback), "argument %q is not a property of input", arg)
	case !in.isSchema:
		v.add(pos, "write the property as a schema, like "+arg+": {type: string}", "argument %q is a property of input that is no schema", arg)
	case typ != "string":
		v.add(pos, "typed text can only fill a property of type string", "argument %q has type %v, not string", arg, typ)
	}
	requiredValue := in.required
	required, isList := requiredValue.([]any)
	if requiredValue != nil && !isList {
		v.add(d.at("spec", "input", "required"), "write required as a list of property names", "input.required is not a list")
	}
	for _, r := range required {
		if r == arg {
			continue
		}
		hint := fmt.Sprintf("typed text fills only %q; make %v optional or drop the skill", arg, r)
		if recorded {
			hint = fmt.Sprintf("typed text fills only %q, and the server requires %v; drop the selector, or declare the capability by hand", arg, r)
		}
		v.add(v.skillAt(c, "argument", "spec", "input", "required"), hint, "input requires %v, which the skill cannot supply", r)
	}
}

// argumentInput is what the argument check reads of an input schema for one
// argument: whether the schema declares it as a property, whether that property
// is a schema, its type, the sorted names of the properties it declares when it
// does not, and the schema's required list, decoded.
type argumentInput struct {
	declared, isSchema bool
	typ                any
	properties         []string
	required           any
}

// argumentInput decodes what the argument check reads of input once for each
// distinct schema text and argument, as checkSchemas checks each distinct
// schema once: the capabilities of a server or a catalog often share their
// input schemas, and this decoding was two thirds of the CPU validation took.
func (v *validator) argumentInput(input json.RawMessage, arg string) argumentInput {
	key := string(input) + "\x00" + arg
	if in, ok := v.argumentInputs[key]; ok {
		return in
	}
	members, _ := jsonMembers(input)
	properties, _ := jsonMembers(members["properties"])
	raw, declared := properties[arg]
	property, isSchema := jsonMembers(raw)
	in := argumentInput{declared: declared, isSchema: isSchema, typ: jsonValue(property["type"]), required: jsonValue(members["required"])}
	if !declared {
		in.properties = slices.Sorted(maps.Keys(properties))
	}
	if v.argumentInputs == nil {
		v.argumentInputs = map[string]argumentInput{}
	}
	v.argumentInputs[key] = in
	return in
}

// jsonMembers is the JSON object raw by its exact keys (encoding/json would match
// struct fields to keys of any case), or false when raw is no object.
func jsonMembers(raw json.RawMessage) (map[string]json.RawMessage, bool) {
	var members map[string]json.RawMessage
	if !bytes.HasPrefix(raw, []byte("{")) || json.Unmarshal(raw, &members) != nil {
		return nil, false
	}
	return members, true
}

// jsonValue decodes raw; nil when raw is empty, null or no JSON. It reads a
// property's type and an input's required list, for every capability of every
// load, so it is json.Unmarshal: a Decoder would allocate its buffer each time.
func jsonValue(raw json.RawMessage) any {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return nil
	}
	return v
}

// representable refuses registry text that must reach the model as written (a
// command line, the argument's name) but that a client reading a target would
// replace in the skill body. Prose such as the title is escaped instead.
func (v *validator) representable(c Capability) {
	targets := c.Spec.Skill.Targets
	if len(targets) == 0 {
		targets = v.reg.Targets()
	}
	type bodyText struct {
		keys []string
		pos  place
		text string
	}
	argument := []string{"spec", "skill", "argument"}
	texts := []bodyText{{argument, v.skillAt(c, "argument", argument...), c.Spec.Skill.Argument}}
	if cli := c.Spec.CLI; cli != nil {
		texts = append(texts, bodyText{[]string{"spec", "cli"}, v.doc.at("spec", "cli"), strings.Join(append(append([]string{}, cli.Command...), cli.Flag), " ")})
	}
	for _, target := range targets {
		for _, t := range texts {
			if bad := render.Unrepresentable(target, t.text); bad != "" {
				v.add(t.pos, "leave it out of the command, or leave "+target+" out of spec.skill.targets",
					"%s holds %s, which a client reading %s replaces in the skill, and a command must reach the model as written",
					strings.Join(t.keys[1:], "."), strconv.Quote(bad), clients.Dir(target))
			}
		}
	}
}

func (v *validator) skill(s *Skill) {
	v.doc = s.doc
	ch, known := v.checks.lookup(s.doc)
	if !known || s.inConfig() {
		ch = v.checkSkill(*s)
	}
	if !s.inConfig() {
		v.checks.keep(s.doc, ch)
	}
	v.problems = append(v.problems, ch.beforeName...)
	if ch.claimName {
		v.claimName(s.Name, claim{skill: s}, "skill name")
	}
	v.problems = append(v.problems, ch.afterName...)
}

// specKeys checks the Agent Skills specification's keys a skill carries: each a
// line of front matter.
func (v *validator) specKeys(s Skill) {
	d, spec := s.doc, s.Spec
	for _, f := range []struct{ key, value string }{{"license", spec.License}, {"compatibility", spec.Compatibility}, {"allowedTools", spec.AllowedTools},
		{"argumentHint", spec.ArgumentHint}, {"model", spec.Model}, {"context", spec.Context}, {"agent", spec.Agent}} {
		switch {
		case f.value == "":
		case strings.TrimSpace(f.value) == "":
			v.add(d.at("spec", f.key), "give it a value, or leave it out", "%s is blank", f.key)
		case !v.oneLine(d.at("spec", f.key), f.key, f.value):
		case f.key == "compatibility" && utf8.RuneCountInString(f.value) > MaxCompatibilityLength:
			v.add(d.at("spec", f.key), fmt.Sprintf("shorten it to %d characters, the specification's limit", MaxCompatibilityLength),
				"compatibility is %d characters long", utf8.RuneCountInString(f.value))
		}
	}
	for _, k := range slices.Sorted(maps.Keys(spec.Metadata)) {
		if strings.TrimSpace(k) == "" || !singleLineText(k) {
			v.add(d.at("spec", "metadata"), "name each property with a word on one line", "metadata has the key %q", k)
			continue
		}
		v.oneLine(d.at("spec", "metadata", k), "metadata."+k, spec.Metadata[k])
	}
}

// checkSkill runs the checks of s that need no other declaration.
func (v *validator) checkSkill(s Skill) checked {
	d, spec := s.doc, s.Spec
	outer := v.problems
	v.problems = nil
	ch := checked{claimName: v.checkName(s.Name, v.skillNameAt(s), "skill name")}
	ch.beforeName, v.problems = v.problems, nil
	switch n := utf8.RuneCountInString(spec.Description); {
	case spec.Dir != "" && s.bodyLine == 0:
		// The directory could not be read, which is its problem already.
	case strings.TrimSpace(spec.Description) == "" && spec.Dir != "":
		v.problems = append(v.problems, Problem{Pos: Position{File: path.Join(s.Dir, "SKILL.md"), Line: 2},
			Message: fmt.Sprintf("skill %s has no description", s.Name), Hint: "add description: one line saying what the skill is for"})
	case strings.TrimSpace(spec.Description) == "":
		v.add(d.at("spec"), "add spec.description: one line saying what the skill is for", "skill %s has no description", s.Name)
	case !v.oneLine(d.at("spec", "description"), "description", spec.Description):
	case n > MaxDescriptionLength:
		v.add(d.at("spec", "description"), fmt.Sprintf("shorten it to %d characters; clients reject longer descriptions", MaxDescriptionLength), "description is %d characters long", n)
	}
	switch {
	case spec.Body != "" && spec.BodyFile != "":
		v.add(d.at("spec", "bodyFile"), "keep one of body and bodyFile", "skill %s has both body and bodyFile", s.Name)
	case spec.Body == "" && spec.BodyFile == "" && spec.Dir == "":
		v.add(d.at("spec"), "add body: (inline text) or bodyFile: (a path relative to this file)", "skill %s has no body", s.Name)
	}
	v.bodyText(s)
	v.specKeys(s)
	for i, p := range spec.Paths {
		if !v.oneLine(itemAt(d, i, "spec", "paths"), "path", p) {
			continue
		}
		if p == "" || strings.HasPrefix(p, "/") || p == ".." || strings.HasPrefix(p, "../") || strings.Contains(p, "/../") {
			v.add(itemAt(d, i, "spec", "paths"), "paths are globs relative to the workspace root", "path %q is absolute or leaves the workspace", p)
		}
	}
	v.targetList(d, spec.Targets, "spec", "targets")
	// A published skill's are its source's publishedSkills', checked at their
	// line in skillsync.yaml.
	if !v.reg.isSnapshot(d.file()) {
		v.required(d, spec.RequiredCapabilities, "spec", "requiredCapabilities")
	}
	ch.afterName, v.problems = v.problems, outer
	return ch
}

// checkName checks a skill name on its own, and says whether it is one to claim
// against the others.
func (v *validator) checkName(name string, pos place, what string) bool {
	switch {
	case name == "":
		v.add(pos, "use "+skillNameRequirements, "%s is empty", what)
		return false
	case len(name) > MaxNameLength:
		v.add(pos, fmt.Sprintf("shorten it to %d characters", MaxNameLength), "%s %q is %d characters long", what, name, len(name))
		return false
	case !isSkillName(name):
		v.add(pos, "use "+skillNameRequirements, "%s %q is not a valid skill name", what, name)
		return false
	}
	if workspacefs.WindowsDeviceName(name) {
		v.add(pos, "pick another name; Windows cannot create a file or directory called that", "%s %q is a Windows device name", what, name)
	}
	if by := clients.ReservedBy(name, v.reg.Targets()); len(by) > 0 {
		v.add(pos, "pick another name; a project skill with it would replace or shadow the client's own command", "%s %q is reserved by %s", what, name, strings.Join(by, " and "))
	}
	if contains(v.reg.Config.Spec.ReservedNames, name) {
		v.add(pos, "pick another name or remove it from spec.reservedNames", "%s %q is listed in reservedNames of %s", what, name, ConfigName)
	}
	return true
}

// claimName claims a valid skill name for cl, or reports the clash at both
// declarations: which of them is the one just added, the order the files are
// read in cannot tell, and a pull request annotated on the old line alone would
// not show the new one. Aliases and skill names share one namespace.
func (v *validator) claimName(name string, cl claim, what string) {
	const hint = "aliases and skill names share one namespace"
	first, dup := v.taken.names[name]
	if !dup {
		v.taken.names[name] = cl
		return
	}
	v.add(v.claimAt(cl), hint, "%s %q is taken by %s at %s", what, name, first.owner(), v.claimAt(first).Position())
	if v.clashed == nil {
		v.clashed = map[string]bool{}
	}
	if !v.clashed[name] {
		v.clashed[name] = true
		later, n := v.claimAt(cl), len(v.problems)
		v.add(v.claimAt(first), hint, "%s %q is also claimed by %s at %s", first.what(), name, cl.owner(), later.Position())
		if r := later.recorded; r != nil && len(v.problems) > n {
			v.problems[n].snapshot = r.snapshot // as the later claim's problem, a refresh may mend it
		}
	}
}

func (v *validator) targetList(d document, targets []string, keys ...string) {
	seen := map[string]bool{}
	for i, t := range targets {
		if !contains(clients.TargetNames(), t) {
			v.add(itemAt(d, i, keys...), suggest(t, clients.TargetNames(), "known targets: "+strings.Join(clients.TargetNames(), ", ")), "unknown target %q", t)
		}
		if seen[t] {
			v.add(itemAt(d, i, keys...), "list each target once", "target %q listed twice", t)
		}
		seen[t] = true
	}
}

func (v *validator) required(d document, names []string, keys ...string) {
	for i, c := range names {
		pos := itemAt(d, i, keys...)
		switch {
		case !isDottedName(c):
			v.add(pos, "client capabilities are dotted names like markdown.codeBlock.echarts-fulldata", "required capability %q is not a dotted name", c)
		case !v.announced[c]:
			v.add(pos, suggest(c, sortedKeys(v.announced), "declare a Profile that announces it"), "required capability %q is announced by no profile", c)
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// suggest offers the closest known name, or the fallback hint when none is close.
