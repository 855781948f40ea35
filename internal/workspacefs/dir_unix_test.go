//go:build unix

package workspacefs

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func makeFIFO(t *testing.T, path string) {
	t.Helper()
	mustDo(t, syscall.Mkfifo(path, 0o644))
}

// A write that fails part way (here: past the file size limit, as on a full disk)
// is an error, and the file it created is gone. The limit is set in a child process.
func TestWriteNewThatFailsRemovesTheFile(t *testing.T) {
	if dir := os.Getenv("WORKSPACEFS_FSIZE_CHILD"); dir != "" {
		root, err := os.OpenRoot(dir)
		mustDo(t, err)
		d, err := OpenDir(root, ".")
		mustDo(t, err)
		// Only the write is limited: the test binary writes more on its way out
		// (a coverage profile under go test -cover).
		var was syscall.Rlimit
		mustDo(t, syscall.Getrlimit(syscall.RLIMIT_FSIZE, &was))
		mustDo(t, syscall.Setrlimit(syscall.RLIMIT_FSIZE, &syscall.Rlimit{Cur: 1024, Max: was.Max}))
		err = d.WriteNew("big", make([]byte, 4096), 0o644)
		mustDo(t, syscall.Setrlimit(syscall.RLIMIT_FSIZE, &was))
		fmt.Printf("error: %v\n", err)
		return
	}
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run", "^TestWriteNewThatFailsRemovesTheFile$")
	cmd.Env = append(os.Environ(), "WORKSPACEFS_FSIZE_CHILD="+dir)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "error: write") || !strings.Contains(string(out), "file too large") {
		t.Errorf("WriteNew past the size limit did not report the write error:\n%s", out)
	}
	if _, err := os.Lstat(filepath.Join(dir, "big")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the partly written file is still there: %v", err)
	}
}
