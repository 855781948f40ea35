package observed

import (
	"sync"
	"time"

	"github.com/skillsync/skillsync/internal/workspacefs"
)

// RacyWindow is how much older than the moment its stamp is taken a file's
// modification and change times must be for the file to be known by its stamp
// alone: more than the coarsest timestamp of any filesystem skillsync runs on
// (FAT's two seconds). A write that leaves size, times and inode as they were
// cannot go unseen then, as git keeps a racily clean entry out of its index.
const RacyWindow = 2 * time.Second

// Cache keeps what each of skillsync's own files read as, by its stamp, from
// scan to scan, so that a scan reads only the files whose stamp changed or is
// too recent to tell: the watcher keeps one. A file a person wrote or edited is
// read at every scan. A zero Cache is empty and ready.
type Cache struct {
	mu    sync.Mutex
	files map[string]cachedFile
	pass  int
	// now is the clock stamps are judged by; time.Now when nil.
	now func() time.Time
}

// NewCache is a Cache that judges stamps by the clock now.
func NewCache(now func() time.Time) *Cache { return &Cache{now: now} }

type cachedFile struct {
	stamp workspacefs.Stamp
	file  File
	pass  int
}

// lookup is the file at rel as read before, when its stamp is still st.
func (c *Cache) lookup(rel string, st workspacefs.Stamp) (File, bool) {
	if c == nil || !st.Valid {
		return File{}, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.files[rel]
	if !ok || e.stamp != st {
		return File{}, false
	}
	e.pass = c.pass
	c.files[rel] = e
	return e.file, true
}

// store keeps f, read at rel after its stamp was taken as st, when it is
// skillsync's own and old enough to be known by its stamp.
func (c *Cache) store(rel string, st workspacefs.Stamp, f File) {
	if c == nil || !st.Valid || f.Ownership != Owned || f.Bytes != nil {
		return
	}
	now := time.Now
	if c.now != nil {
		now = c.now
	}
	settled := now().Add(-RacyWindow).UnixNano()
	if st.Mtime >= settled || st.Ctime >= settled {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.files == nil {
		c.files = map[string]cachedFile{}
	}
	c.files[rel] = cachedFile{stamp: st, file: f, pass: c.pass}
}

// Sweep forgets every file not met since the last Sweep.
func (c *Cache) Sweep() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for rel, e := range c.files {
		if e.pass < c.pass {
			delete(c.files, rel)
		}
	}
	c.pass++
}
