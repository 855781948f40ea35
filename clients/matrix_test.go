package clients

import (
	"flag"
	"os"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the client matrix in docs/clients.md")

const (
	docsFile    = "../docs/clients.md"
	matrixBegin = "<!-- generated from clients/table.go by `go test ./clients -update`; do not edit -->\n"
	matrixEnd   = "<!-- end of generated matrix -->\n"
)

// docs/clients.md shows the table as it is: run `go test ./clients -update` after
// changing it.
func TestMatrixInDocsIsCurrent(t *testing.T) {
	data, err := os.ReadFile(docsFile)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(data)
	begin, end := strings.Index(doc, matrixBegin), strings.Index(doc, matrixEnd)
	if begin < 0 || end < begin {
		t.Fatalf("%s has no generated matrix between %q and %q", docsFile, matrixBegin, matrixEnd)
	}
	current := doc[begin+len(matrixBegin) : end]
	if current == Matrix() {
		return
	}
	if !*update {
		t.Fatalf("the client matrix in %s is stale; run go test ./clients -update", docsFile)
	}
	if err := os.WriteFile(docsFile, []byte(doc[:begin+len(matrixBegin)]+Matrix()+doc[end:]), 0o644); err != nil {
		t.Fatal(err)
	}
}
