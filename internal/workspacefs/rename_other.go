//go:build !darwin && (!linux || skillsync_portable)

package workspacefs

import "os"

// renameNoReplace is ErrNoReplaceUnsupported: os.Root has no rename that
// refuses to replace, and callers fall back to Link, which never replaces.
func renameNoReplace(*os.Root, string, string) error { return ErrNoReplaceUnsupported }

// exchange is ErrExchangeUnsupported: os.Root has no rename that swaps, and
// callers fall back to a check before a Rename.
func exchange(*os.Root, string, string) error { return ErrExchangeUnsupported }
