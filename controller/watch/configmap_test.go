package watch

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/skillsync/skillsync/controller"
	"github.com/skillsync/skillsync/internal/testkit"
	"github.com/skillsync/skillsync/internal/testkit/property"
	"github.com/skillsync/skillsync/internal/workspacefs"
)

// configMapVolume is a directory laid out and updated the way the kubelet's
// AtomicWriter lays out and updates a ConfigMap volume: the files of a version
// in a ..<timestamp> directory, ..data a symlink to it, and each key a symlink
// through ..data (key -> ..data/key).
type configMapVolume struct {
	dir     string
	rng     *rand.Rand
	version int
	current string   // the ..<timestamp> directory ..data leads to
	keys    []string // the keys of the current version
	pause   int      // the longest pause inside an update, in milliseconds
}

// update publishes files as the next version, in the kubelet's order: a fresh
// ..<timestamp> directory; each file created (truncated) and written in two
// pieces, with pauses; a ..data_tmp link to the directory renamed over ..data;
// a link for each new key, the links of keys gone removed; the old directory
// removed.
func (v *configMapVolume) update(t *testing.T, files map[string]string) {
	t.Helper()
	v.version++
	ts := fmt.Sprintf("..2026_11_30_12_00_00.%09d", v.version)
	must(t, os.Mkdir(filepath.Join(v.dir, ts), 0o755))
	keys := slices.Sorted(maps.Keys(files))
	v.rng.Shuffle(len(keys), func(i, j int) { keys[i], keys[j] = keys[j], keys[i] })
	for _, key := range keys {
		f, err := os.OpenFile(filepath.Join(v.dir, ts, key), os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
		must(t, err)
		data := files[key]
		cut := v.rng.IntN(len(data) + 1)
		v.sleep()
		_, err = f.WriteString(data[:cut])
		must(t, err)
		v.sleep()
		_, err = f.WriteString(data[cut:])
		must(t, err)
		must(t, f.Close())
	}
	must(t, os.Symlink(ts, filepath.Join(v.dir, "..data_tmp")))
	must(t, os.Rename(filepath.Join(v.dir, "..data_tmp"), filepath.Join(v.dir, "..data")))
	for _, key := range keys {
		if !slices.Contains(v.keys, key) {
			must(t, os.Symlink("..data/"+key, filepath.Join(v.dir, key)))
		}
	}
	for _, key := range v.keys {
		if _, kept := files[key]; !kept {
			must(t, os.Remove(filepath.Join(v.dir, key)))
		}
	}
	if v.current != "" {
		must(t, os.RemoveAll(filepath.Join(v.dir, v.current)))
	}
	v.current, v.keys = ts, keys
}

func (v *configMapVolume) sleep() {
	time.Sleep(time.Duration(v.rng.IntN(v.pause+1)) * time.Millisecond)
}

// configMapSwaps is how many updates each layout gets: a few in make test, 50
// in make reliability.
func configMapSwaps(t *testing.T) int { return property.Cases(t, "CONFIGMAP_SWAPS", 6) }

// archiveCapability is a capability some versions add in a file of its own.
const archiveCapability = `apiVersion: skillsync/v1
kind: Capability
metadata: {name: intents.archive}
spec:
  title: Archive an intent
  effect: write
  input: {type: object, properties: {reference: {type: string}}, required: [reference]}
  mcp: {tool: intents_archive}
  skill: {alias: archive-intent, argument: reference}
`

// A watcher whose inputs a kubelet updates as a ConfigMap: the registry
// directory as the volume itself, the registry as a link into a volume, and
// skillsync.yaml as a key of one. Each version retitles a skill, and some add
// or remove a key (a capability and its skills); the kubelet writes each file in
// pieces, with pauses. After each update the watcher converges (ready, and a
// pass from scratch finds nothing to change), and no generated file that both
// versions want is missing at any poll meanwhile.
func TestWatchFollowsConfigMapUpdates(t *testing.T) {
	for _, layout := range []struct {
		name string
		// mount moves the example's inputs into a ConfigMap volume and returns
		// it, with the files of its first version; vary makes version i.
		mount func(t *testing.T, root string) (string, map[string]string)
		vary  func(files map[string]string, i int, rng *rand.Rand)
	}{
		{"registry directory is the volume", func(t *testing.T, root string) (string, map[string]string) {
			return filepath.Join(root, "registry"), takeFiles(t, filepath.Join(root, "registry"))
		}, varyRegistry},
		{"registry links into the volume", func(t *testing.T, root string) (string, map[string]string) {
			files := takeFiles(t, filepath.Join(root, "registry"))
			must(t, os.Symlink("cm/..data", filepath.Join(root, "registry")))
			return filepath.Join(root, "cm"), files
		}, varyRegistry},
		{"skillsync.yaml is a key", func(t *testing.T, root string) (string, map[string]string) {
			data, err := os.ReadFile(filepath.Join(root, "skillsync.yaml"))
			must(t, err)
			must(t, os.Remove(filepath.Join(root, "skillsync.yaml")))
			must(t, os.Symlink("config/skillsync.yaml", filepath.Join(root, "skillsync.yaml")))
			return filepath.Join(root, "config"), map[string]string{"skillsync.yaml": string(data)}
		}, func(files map[string]string, i int, rng *rand.Rand) {
			disabled := "disabled: []"
			if rng.IntN(2) == 0 {
				disabled = "disabled: [note, find-intent]"
			}
			files["skillsync.yaml"] = strings.Replace(files["skillsync.yaml"], "disabled: []", disabled, 1) + fmt.Sprintf("# version %d\n", i)
		}},
	} {
		t.Run(layout.name, func(t *testing.T) {
			seed := property.Seed(t, "CONFIGMAP_SEED")
			rng := rand.New(rand.NewPCG(seed, 7))
			root := testkit.ExampleWorkspace(t)
			dir, first := layout.mount(t, root)
			must(t, os.MkdirAll(dir, 0o755))
			v := &configMapVolume{dir: dir, rng: rng, pause: 40}
			v.update(t, first)
			w := startWatcher(t, Options{Request: controller.Request{System: workspacefs.OS{}, Root: root, Settle: 200 * time.Millisecond}})
			for i := 1; i <= configMapSwaps(t); i++ {
				files := maps.Clone(first)
				layout.vary(files, i, rng)
				before := generatedFiles(t, root)
				watch := watchPresence(root, before)
				v.update(t, files)
				await(t, func() bool {
					out := controller.Reconcile(controller.Request{System: workspacefs.OS{}, Root: root, Check: true})
					return w.ready() == Converged && len(out.Problems) == 0 && out.Err == nil && len(out.Plan.Changes) == 0
				})
				after := generatedFiles(t, root)
				for _, p := range watch() {
					if slices.Contains(after, p) {
						t.Errorf("update %d (replay: CONFIGMAP_SEED=%d CONFIGMAP_SWAPS=%d): %s was missing for a moment", i, seed, i, p)
					}
				}
				time.Sleep(time.Duration(rng.IntN(100)) * time.Millisecond)
			}
		})
	}
}

// varyRegistry makes version i of the registry: a skill retitled, and the key
// of one more capability there or not.
func varyRegistry(files map[string]string, i int, rng *rand.Rand) {
	files["intents.yaml"] = strings.Replace(files["intents.yaml"], "title: Search intents", fmt.Sprintf("title: Search intents, version %d", i), 1)
	if rng.IntN(2) == 0 {
		files["archive.yaml"] = archiveCapability
	}
}

// takeFiles removes the directory dir and returns the files it held.
func takeFiles(t *testing.T, dir string) map[string]string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	must(t, err)
	files := map[string]string{}
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		must(t, err)
		files[e.Name()] = string(data)
	}
	must(t, os.RemoveAll(dir))
	return files
}

// generatedFiles lists the files in the target directories of root.
func generatedFiles(t *testing.T, root string) []string {
	t.Helper()
	var out []string
	for _, dir := range []string{".claude", ".qwen", ".agents"} {
		filepath.WalkDir(filepath.Join(root, dir), func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				rel, _ := filepath.Rel(root, p)
				out = append(out, filepath.ToSlash(rel))
			}
			return nil
		})
	}
	return out
}

// watchPresence checks every few milliseconds that each of paths exists, until
// the function it returns is called; that lists each one seen missing.
func watchPresence(root string, paths []string) func() []string {
	var mu sync.Mutex
	missing := map[string]bool{}
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			for _, p := range paths {
				if _, err := os.Lstat(filepath.Join(root, p)); err != nil {
					mu.Lock()
					missing[p] = true
					mu.Unlock()
				}
			}
			select {
			case <-stop:
				return
			case <-time.After(2 * time.Millisecond):
			}
		}
	}()
	return func() []string {
		close(stop)
		<-done
		mu.Lock()
		defer mu.Unlock()
		return slices.Sorted(maps.Keys(missing))
	}
}
