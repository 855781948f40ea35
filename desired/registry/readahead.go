package registry

import (
	"github.com/skillsync/skillsync/internal/parallel"
	"github.com/skillsync/skillsync/internal/workspacefs"
)

// parseAhead is how many registry files a load without a cache reads and parses
// ahead of the one it decodes: parsing is most of such a load, and a file's node
// trees are held only from its parse to its decode.
const parseAhead = 2

// readFile is a registry file as read, and parsed when it could be read.
type readFile struct {
	data     []byte
	err      error
	parsed   bool
	src      *source
	docs     []document
	problems Problems
}

// parse is the parse of file, whose content f holds: the one made ahead, or one
// made now.
func (f readFile) parse(file string) (*source, []document, Problems) {
	if f.parsed {
		return f.src, f.docs, f.problems
	}
	return parseSource(file, f.data)
}

// startReadAhead reads and parses files on parseAhead goroutines, at most
// parseAhead files ahead of the one taken last.
func startReadAhead(r workspacefs.FS, files []string) *parallel.Ahead[readFile] {
	return parallel.StartAhead(len(files), parseAhead, parseAhead, func(i int) readFile {
		f := readFile{}
		f.data, f.err = r.ReadFile(files[i], maxInputSize)
		if f.err == nil {
			f.src, f.docs, f.problems = parseSource(files[i], f.data)
			f.parsed = true
		}
		return f
	})
}
