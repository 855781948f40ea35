package mcp

import (
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/skillsync/skillsync/desired/registry"
)

// EffectOf maps a tool's annotations to an effect, and says why. Annotations are
// hints a server gives: only readOnlyHint: true makes a tool read, so a tool that
// says nothing is never one the model may invoke on its own, and hints that
// contradict each other give the stronger effect.
func EffectOf(a *mcp.ToolAnnotations) (effect, why string) {
	switch {
	case a == nil:
		return registry.EffectWrite, "no annotations: a tool that does not say it only reads writes"
	case a.DestructiveHint != nil && *a.DestructiveHint && a.ReadOnlyHint:
		return registry.EffectDestructive, "destructiveHint: true, which outweighs readOnlyHint: true"
	case a.DestructiveHint != nil && *a.DestructiveHint:
		return registry.EffectDestructive, "destructiveHint: true"
	case a.ReadOnlyHint:
		return registry.EffectRead, "readOnlyHint: true"
	}
	return registry.EffectWrite, "not readOnlyHint: a tool that does not say it only reads writes"
}
