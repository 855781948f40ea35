package main

import (
	"github.com/skillsync/skillsync/controller/plan"
	"github.com/skillsync/skillsync/internal/workspacefs"
	"github.com/skillsync/skillsync/observed"
)

// contents is what a change expects on disk and what it writes, for a diff. The
// plan keeps only the digest of skillsync's own files, so the old side of those is
// read again from disk; a create has no old side and a delete no new one.
func contents(sys workspacefs.System, root string, c plan.Change) (old, new []byte, err error) {
	if c.Action != plan.Create {
		old = c.Old
		if old == nil {
			r, err := sys.Open(root)
			if err != nil {
				return nil, nil, err
			}
			defer r.Close()
			if old, err = r.ReadRegular(c.Path, observed.MaxFileSize); err != nil {
				return nil, nil, err
			}
		}
	}
	if c.Action != plan.Delete {
		new, err = c.Content()
	}
	return old, new, err
}
