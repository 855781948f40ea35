package registry

import "github.com/skillsync/skillsync/internal/workspacefs"

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

// readAhead reads and parses files in order on a goroutine of its own, at most
// parseAhead files ahead of the one taken last.
type readAhead struct {
	results []chan readFile
	room    chan struct{}
	stop    chan struct{}
}

func startReadAhead(r workspacefs.FS, files []string) *readAhead {
	ra := &readAhead{results: make([]chan readFile, len(files)), room: make(chan struct{}, parseAhead), stop: make(chan struct{})}
	for i := range ra.results {
		ra.results[i] = make(chan readFile, 1)
	}
	go func() {
		for i, file := range files {
			select {
			case ra.room <- struct{}{}:
			case <-ra.stop:
				return
			}
			f := readFile{}
			f.data, f.err = r.ReadFile(file, maxInputSize)
			if f.err == nil {
				f.src, f.docs, f.problems = parseSource(file, f.data)
				f.parsed = true
			}
			ra.results[i] <- f
		}
	}()
	return ra
}

// take waits for file i of the list, read and parsed.
func (ra *readAhead) take(i int) readFile {
	f := <-ra.results[i]
	<-ra.room
	return f
}

// close stops the reading of files not taken.
func (ra *readAhead) close() { close(ra.stop) }
