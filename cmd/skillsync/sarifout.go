package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/skillsync/skillsync/controller"
	"github.com/skillsync/skillsync/controller/plan"
	"github.com/skillsync/skillsync/desired/registry"
	"github.com/skillsync/skillsync/internal/gitfiles"
	"github.com/skillsync/skillsync/internal/sarif"
	"github.com/skillsync/skillsync/internal/workspacefs"
)

// The rules of -o sarif. Their ids are what code scanning keys alerts by, so
// they never change; docs/workflow.md ("Code scanning") says what each means.
const (
	ruleInvalidInput = "skillsync/invalid-input"
	ruleWarning      = "skillsync/warning"
	ruleNote         = "skillsync/note"
	ruleDrift        = "skillsync/drift"
	ruleConflict     = "skillsync/conflict"
	ruleApplyFailed  = "skillsync/apply-failed"
	ruleScanPrefix   = "skillsync/scan/"
)

const (
	projectURL = "https://github.com/skillsync/skillsync"
	docsURL    = projectURL + "/blob/main/docs/"
)

// sarifTool is skillsync as the driver of a SARIF run, with every rule.
func sarifTool() sarif.Tool {
	codeScanning := docsURL + "workflow.md#code-scanning"
	rules := []sarif.Rule{
		{ID: ruleInvalidInput, Level: sarif.Error, HelpURI: codeScanning,
			Description: "skillsync.yaml or the registry is invalid: nothing is written until it is fixed."},
		{ID: ruleWarning, Level: sarif.Warning, HelpURI: codeScanning,
			Description: "The registry is valid, but something in it is likely a mistake."},
		{ID: ruleNote, Level: sarif.Note, HelpURI: codeScanning,
			Description: "The registry is valid; a note on how a client reads it."},
		{ID: ruleDrift, Level: sarif.Error, HelpURI: codeScanning,
			Description: "A generated skill file is not in step with the registry: run skillsync reconcile --once and commit the result."},
		{ID: ruleConflict, Level: sarif.Error, HelpURI: docsURL + "ownership.md",
			Description: "A file skillsync would write is in the way: edited by hand, or not skillsync's."},
		{ID: ruleApplyFailed, Level: sarif.Error, HelpURI: codeScanning,
			Description: "A change to a generated file failed."},
	}
	for _, kind := range registry.Findings {
		rules = append(rules, sarif.Rule{ID: ruleScanPrefix + kind, Level: sarif.Error, HelpURI: docsURL + "trust.md#the-scan",
			Description: fmt.Sprintf("Text holds what a model reads and a person does not see (%s finding of the trust scan).", kind)})
	}
	return sarif.Tool{Name: "skillsync", Version: readBuildInfo().Version, InformationURI: projectURL, Rules: rules}
}

// sarifLog writes results, found in the workspace at root, as a SARIF log
// whose locations are relative to the root of the git work tree holding it
// (to the workspace's own root outside git).
// Messages name no path of the machine that ran the check (see machineFree).
func sarifLog(w io.Writer, sys workspacefs.System, root string, results []sarif.Result) error {
	prefix, err := workspaceInRepository(sys, root)
	if err != nil {
		return err
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		return err
	}
	home, _ := os.UserHomeDir()
	for i := range results {
		results[i].File = joinSlash(prefix, results[i].File)
		results[i].Message = machineFree(results[i].Message, abs, home)
	}
	return sarif.Write(w, sarifTool(), results)
}

// machineFree is msg with the workspace's absolute path made relative and the
// home directory written ~: code scanning keeps the message and skillsync
// fingerprints a result by it, so the same problem must read the same from
// every checkout and runner, and a runner's paths are not the repository's to
// publish.
func machineFree(msg, root, home string) string {
	sep := string(filepath.Separator)
	pairs := []string{root + sep, "", root, "."}
	if home != "" && home != sep {
		pairs = append(pairs, home+sep, "~/", home, "~")
	}
	return strings.NewReplacer(pairs...).Replace(msg)
}

// workspaceInRepository is the slash path of the workspace from the root of
// the git work tree it is in, "" when it is that root or in none.
func workspaceInRepository(sys workspacefs.System, root string) (string, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return "", err
	}
	top, ok := gitfiles.WorkTreeRoot(sys, abs)
	if !ok {
		return "", nil
	}
	rel, err := filepath.Rel(top, abs)
	if err != nil {
		return "", err
	}
	if rel == "." {
		return "", nil
	}
	return filepath.ToSlash(rel), nil
}

func joinSlash(prefix, file string) string {
	if prefix == "" {
		return file
	}
	return prefix + "/" + file
}

// sourceFile matches a file as messages name a file of a source:
// SOURCE:path, SOURCE being a source's name.
var sourceFile = regexp.MustCompile(`^[a-z0-9-]+:`)

// problemResults are ps as results of the level given: a finding of the trust
// scan under its kind's rule, any other problem under rule. A problem in a
// file of a source, or in any other file outside the workspace, is placed
// where skillsync.yaml declares the source (at skillsync.yaml when none
// does), its message naming the file.
func problemResults(ps registry.Problems, level sarif.Level, rule string) []sarif.Result {
	var out []sarif.Result
	for _, p := range ps {
		id := rule
		if p.Finding != "" {
			id = ruleScanPrefix + p.Finding
		}
		text := p.Message
		if p.Hint != "" {
			text += " (" + p.Hint + ")"
		}
		at := p.Pos
		if p.DeclaredAt.File != "" || !sarif.Inside(at.File) || sourceFile.MatchString(at.File) {
			if at.File != "" {
				text = at.String() + ": " + text
			}
			at = p.DeclaredAt
			if at.File == "" {
				at = registry.Position{File: registry.ConfigName}
			}
		}
		out = append(out, sarif.Result{RuleID: id, Level: level, Message: text, File: at.File, Line: at.Line, Column: at.Column})
	}
	return out
}

// planResults are the paths a run leaves as they should not be, as annotatePlan
// names them: in conflict, failed, or, for --check, to change; each at the
// registry line that declares its skill when the change follows from the
// declaration, else at the file, or, for a file not there yet that no skill
// declares (a target directory's .gitattributes), at skillsync.yaml, which
// names the targets: code scanning shows an alert on a file the repository
// has.
func planResults(out controller.Outcome, check bool) []sarif.Result {
	var results []sarif.Result
	for _, l := range leftOutOfStep(out, check) {
		rule := ruleDrift
		switch {
		case l.Action == plan.Conflict:
			rule = ruleConflict
		case l.Fate == controller.FailedApply:
			rule = ruleApplyFailed
		}
		at := changeAt(out, l.Result)
		if l.Action == plan.Create && at.File == l.Path {
			at = registry.Position{File: registry.ConfigName}
		}
		results = append(results, sarif.Result{RuleID: rule, Level: sarif.Error, Message: l.text, File: at.File, Line: at.Line, Column: at.Column})
	}
	return results
}
