package workspacefs

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// forbidden are the calls that touch files, by import path: outside this package,
// skillsync's own code reaches the disk only through a System.
var forbidden = map[string][]string{
	"os": {"Open", "OpenFile", "Create", "CreateTemp", "ReadFile", "WriteFile", "ReadDir", "Remove", "RemoveAll",
		"Rename", "Mkdir", "MkdirAll", "MkdirTemp", "Stat", "Lstat", "Symlink", "Link", "Readlink", "Chmod", "Chown",
		"Lchown", "Chtimes", "Truncate", "OpenRoot", "OpenInRoot", "DirFS", "CopyFS", "Chdir"},
	"path/filepath": {"EvalSymlinks", "Walk", "WalkDir", "Glob"},
	"io/ioutil":     {"ReadFile", "WriteFile", "ReadDir", "TempFile", "TempDir"},
	"syscall":       {"Open", "Openat", "Unlink", "Unlinkat", "Rename", "Renameat", "Mkdir", "Mkdirat", "Rmdir", "Link", "Symlink", "Stat", "Lstat", "Fstatat", "Getdents", "Flock", "Sync", "Fsync", "Creat", "Truncate", "Chmod"},
	"golang.org/x/sys/unix": {"Open", "Openat", "Openat2", "Unlink", "Unlinkat", "Rename", "Renameat", "Renameat2", "Mkdir", "Mkdirat",
		"Rmdir", "Link", "Linkat", "Symlink", "Symlinkat", "Stat", "Lstat", "Fstatat", "Getdents", "Flock", "Sync", "Syncfs", "Fsync", "Creat", "Truncate"},
}

// TestTheSeamIsTheOnlyWayToTheDisk fails on any call in the product code, outside
// internal/workspacefs, that reads or writes files directly: every package the
// skillsync binary is built from, as go list finds them, each for every platform.
func TestTheSeamIsTheOnlyWayToTheDisk(t *testing.T) {
	dirs := productDirs(t)
	if !slices.Contains(dirs, "cmd/skillsync") || !slices.Contains(dirs, "controller") {
		t.Fatalf("go list found no product packages where they are: %v", dirs)
	}
	for _, v := range findDirectFileCalls(t, "../..", dirs) {
		t.Errorf("%s: reaches the disk directly; go through a workspacefs.System", v)
	}
}

// productDirs are the directories, relative to the module root, of the packages
// of the module the skillsync binary is built from, but this one.
func productDirs(t *testing.T) []string {
	t.Helper()
	cmd := exec.Command("go", "list", "-deps", "-f", "{{if not .Standard}}{{.Module.Path}} {{.Dir}}{{end}}", "./cmd/skillsync")
	cmd.Dir = "../.."
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	var dirs []string
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		module, dir, _ := strings.Cut(line, " ")
		rel, err := filepath.Rel(root, dir)
		if module != "github.com/skillsync/skillsync" || err != nil || filepath.ToSlash(rel) == "internal/workspacefs" {
			continue
		}
		dirs = append(dirs, filepath.ToSlash(rel))
	}
	return dirs
}

// The check finds a direct call where there is one: a file written here with one
// of each kind is reported in full.
func TestTheSeamCheckFindsDirectCalls(t *testing.T) {
	dir := t.TempDir()
	src := `package planted

import (
	"os"
	fp "path/filepath"
	"golang.org/x/sys/unix"
)

func f() {
	os.WriteFile("x", nil, 0o644)
	fp.EvalSymlinks("x")
	unix.Renameat2(0, "a", 0, "b", 0)
	os.Open(os.DevNull)
	os.Getenv("HOME")
}
`
	mustDo(t, os.MkdirAll(filepath.Join(dir, "planted"), 0o755))
	mustWrite(t, filepath.Join(dir, "planted", "planted.go"), src)
	mustWrite(t, filepath.Join(dir, "planted", "planted_test.go"), strings.Replace(src, "package planted", "package planted", 1))
	got := findDirectFileCalls(t, dir, []string{"planted"})
	want := []string{"planted/planted.go:10: os.WriteFile", "planted/planted.go:11: path/filepath.EvalSymlinks", "planted/planted.go:12: golang.org/x/sys/unix.Renameat2"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("found\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func findDirectFileCalls(t *testing.T, module string, dirs []string) []string {
	t.Helper()
	var out []string
	fset := token.NewFileSet()
	for _, top := range dirs {
		err := filepath.WalkDir(filepath.Join(module, top), func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && p != filepath.Join(module, top) {
				return filepath.SkipDir // a package of its own, or testdata
			}
			if d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
				return nil
			}
			file, err := parser.ParseFile(fset, p, nil, 0)
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(module, p)
			out = append(out, directCalls(fset, file, filepath.ToSlash(rel))...)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return out
}

func directCalls(fset *token.FileSet, file *ast.File, name string) []string {
	imported := map[string]string{} // local name -> import path
	for _, imp := range file.Imports {
		p, _ := strconv.Unquote(imp.Path.Value)
		local := p[strings.LastIndex(p, "/")+1:]
		if imp.Name != nil {
			local = imp.Name.Name
		}
		imported[local] = p
	}
	var out []string
	ast.Inspect(file, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		sel, ok := call.Fun.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		pkg, ok := sel.X.(*ast.Ident)
		if !ok {
			return true
		}
		p := imported[pkg.Name]
		for _, fn := range forbidden[p] {
			if sel.Sel.Name == fn && !opensDevNull(call, p, fn) {
				out = append(out, name+":"+strconv.Itoa(fset.Position(call.Pos()).Line)+": "+p+"."+fn)
			}
		}
		return true
	})
	return out
}

// opensDevNull allows os.Open(os.DevNull): the null device is no file of a
// workspace.
func opensDevNull(call *ast.CallExpr, pkg, fn string) bool {
	if pkg != "os" || fn != "Open" || len(call.Args) != 1 {
		return false
	}
	sel, ok := call.Args[0].(*ast.SelectorExpr)
	return ok && sel.Sel.Name == "DevNull"
}
