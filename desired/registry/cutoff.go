package registry

import (
	"bytes"
	"fmt"
)

// CutOff reports every input file that is now a strict prefix of the version last
// applied. That is what an editor that truncates and rewrites in place, a crash in
// the middle of a save, or a full disk leaves behind, and such a file often still
// parses: it declares less than its author meant, and applying it would prune.
// A deliberate removal of a file's last lines looks the same, so it is refused too
// until the author accepts the shorter file.
func CutOff(applied map[string][]byte, now map[string]Source) Problems {
	var ps Problems
	for _, file := range sortedKeys(now) {
		cur, before := now[file], applied[file]
		if before == nil || cur.Size >= len(before) || SourceOf(before[:cur.Size]) != cur {
			continue
		}
		ps = append(ps, Problem{
			Pos: Position{File: file, Line: bytes.Count(before[:cur.Size], []byte("\n")) + 1},
			Message: fmt.Sprintf("the file ends here, after %d bytes, but the version last applied went on for %d more bytes and is otherwise the same; "+
				"it looks cut off in the middle of a save, so nothing was written or removed", cur.Size, len(before)-cur.Size),
			Hint: "finish the save; if you removed the end on purpose, run: skillsync accept " + file,
		})
	}
	return ps
}
