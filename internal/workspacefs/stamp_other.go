//go:build !linux && !darwin && !freebsd && !netbsd && !openbsd && !dragonfly

package workspacefs

import "io/fs"

// stampOf gives no stamp where the system keeps no change time: Windows has
// none, and a stamp without one would miss a write that kept size and
// modification time.
func stampOf(fs.FileInfo) Stamp { return Stamp{} }
