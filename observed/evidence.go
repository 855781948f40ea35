package observed

import (
	"github.com/skillsync/skillsync/clients"
	"github.com/skillsync/skillsync/internal/workspacefs"
)

// Evidence lists, per client name, the signs found that the client is used here.
// lookPath is exec.LookPath in production.
func Evidence(root workspacefs.FS, lookPath func(string) (string, error)) map[string][]string {
	out := map[string][]string{}
	for _, c := range clients.All {
		found := []string{}
		for _, p := range c.Evidence {
			if info, err := root.Lstat(p); err == nil {
				if info.IsDir() {
					if !holdsMoreThanSkills(root, p) {
						continue
					}
					p += "/"
				}
				found = append(found, p)
			}
		}
		for _, t := range c.Tools {
			if _, err := lookPath(t); err == nil {
				found = append(found, t+" on PATH")
			}
		}
		out[c.Name] = found
	}
	return out
}

// holdsMoreThanSkills tells a client's own directory from one skillsync created: a
// directory holding nothing but skills/ is not evidence that anyone uses the client.
func holdsMoreThanSkills(root workspacefs.FS, dir string) bool {
	entries, err := root.ReadDir(dir)
	if err != nil {
		return false
	}
	for _, e := range entries {
		if e.Name() != "skills" {
			return true
		}
	}
	return false
}
