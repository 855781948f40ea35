package docs

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/skillsync/skillsync/"

// goPackage is what go list says of one package of the module.
type goPackage struct {
	ImportPath, Dir, Name string
	Imports               []string
}

// modulePackages lists every package of the module, with the module's packages
// each imports (test files left out), by their paths under the module root.
func modulePackages(t *testing.T) map[string]goPackage {
	t.Helper()
	cmd := exec.Command("go", "list", "-json", "./...")
	cmd.Dir = ".."
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	pkgs := map[string]goPackage{}
	for dec := json.NewDecoder(bytes.NewReader(out)); dec.More(); {
		var p goPackage
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		var own []string
		for _, imp := range p.Imports {
			if rel, ok := strings.CutPrefix(imp, module); ok {
				own = append(own, rel)
			}
		}
		p.Imports = own
		pkgs[strings.TrimPrefix(p.ImportPath, module)] = p
	}
	return pkgs
}

// mapRows are the packages the table under "## The packages" of architecture.md
// names, in its order.
func mapRows(t *testing.T) []string {
	t.Helper()
	data, err := os.ReadFile("architecture.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(data), "\n## The packages\n")
	if !ok {
		t.Fatal(`architecture.md has no "## The packages" section`)
	}
	section, _, _ = strings.Cut(section, "\n## ")
	row := regexp.MustCompile("^\\| `([^`]+)` \\|")
	var rows []string
	for _, line := range strings.Split(section, "\n") {
		if m := row.FindStringSubmatch(line); m != nil {
			rows = append(rows, m[1])
		}
	}
	return rows
}

// The package table of architecture.md names every package of the module and no
// other, and each package imports only packages above it: the map is the code's,
// and no import runs against the pipeline.
func TestTheMapNamesEveryPackageInPipelineOrder(t *testing.T) {
	pkgs := modulePackages(t)
	rows := mapRows(t)
	for _, name := range rows {
		if _, ok := pkgs[name]; !ok {
			t.Errorf("architecture.md names %s, which is no package of the module", name)
		}
	}
	for name, p := range pkgs {
		at := slices.Index(rows, name)
		if at < 0 {
			t.Errorf("%s is missing from the package table of architecture.md", name)
			continue
		}
		for _, imp := range p.Imports {
			if i := slices.Index(rows, imp); i >= at {
				t.Errorf("%s imports %s, which architecture.md lists below it: the import runs against the pipeline", name, imp)
			}
		}
	}
}

// Every package has a doc.go whose package comment says what it imports of the
// module, and says it truly.
func TestEveryPackageSaysWhatItImports(t *testing.T) {
	said := regexp.MustCompile(`(?s)It imports(?:, of this module: (.*?)\.| nothing of this module\.)`)
	for name, p := range modulePackages(t) {
		data, err := os.ReadFile(filepath.Join(p.Dir, "doc.go"))
		if err != nil {
			t.Errorf("%s has no doc.go: %v", name, err)
			continue
		}
		var comment []string
		sc := bufio.NewScanner(bytes.NewReader(data))
		for sc.Scan() {
			if line, ok := strings.CutPrefix(sc.Text(), "//"); ok {
				comment = append(comment, strings.TrimSpace(line))
			}
		}
		m := said.FindStringSubmatch(strings.Join(comment, " "))
		if m == nil {
			t.Errorf("%s/doc.go does not say what the package imports of the module (It imports, of this module: …. / It imports nothing of this module.)", name)
			continue
		}
		var claimed []string
		if m[1] != "" {
			claimed = strings.Split(m[1], ", ")
		}
		slices.Sort(claimed)
		imports := slices.Sorted(slices.Values(p.Imports))
		if !slices.Equal(claimed, imports) {
			t.Errorf("%s/doc.go says it imports %v; it imports %v", name, claimed, imports)
		}
	}
}

// Every package and test the Makefile names exists: a suite moved elsewhere
// must not leave a target that runs nothing and passes.
func TestTheMakefileNamesWhatExists(t *testing.T) {
	data, err := os.ReadFile("../Makefile")
	if err != nil {
		t.Fatal(err)
	}
	// Recipe lines continued with a backslash are one command.
	text := strings.ReplaceAll(string(data), "\\\n", " ")
	testNames := regexp.MustCompile(`-(?:run|fuzz) '([^']*)'`)
	name := regexp.MustCompile(`(?:Test|Fuzz|Benchmark)[A-Za-z0-9_]*`)
	checked := 0
	for _, line := range strings.Split(text, "\n") {
		if !strings.Contains(line, "$(GO) test") {
			continue
		}
		var dirs []string
		for _, field := range strings.Fields(line) {
			pkg, ok := strings.CutPrefix(field, "./")
			if !ok {
				continue
			}
			pkg = strings.Trim(strings.TrimSuffix(pkg, "..."), "/")
			dir := filepath.Join("..", pkg)
			if info, err := os.Stat(dir); err != nil || !info.IsDir() {
				t.Errorf("the Makefile runs the tests of %s, which is no directory:\n%s", field, strings.TrimSpace(line))
				continue
			}
			dirs = append(dirs, dir)
		}
		for _, m := range testNames.FindAllStringSubmatch(line, -1) {
			for _, test := range name.FindAllString(m[1], -1) {
				checked++
				if !definedIn(t, dirs, test) {
					t.Errorf("the Makefile runs %s in %v, where no test of that name is:\n%s", test, dirs, strings.TrimSpace(line))
				}
			}
		}
	}
	if checked == 0 {
		t.Error("found no test named by a -run or -fuzz in the Makefile: the check reads it wrong")
	}
}

// definedIn tells whether a test file in one of dirs declares the function name.
func definedIn(t *testing.T, dirs []string, name string) bool {
	t.Helper()
	decl := regexp.MustCompile(`(?m)^func ` + name + `\(`)
	for _, dir := range dirs {
		files, err := filepath.Glob(filepath.Join(dir, "*_test.go"))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			if decl.Match(data) {
				return true
			}
		}
	}
	return false
}
