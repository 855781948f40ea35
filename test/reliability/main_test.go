//go:build reliability && linux

package reliability

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"sync"
	"testing"
	"text/tabwriter"

	"github.com/skillsync/skillsync/internal/testkit"
)

// row is one line of the table: a suite, how many cases it tried, how many failed.
type row struct {
	suite    string
	cases    int
	failures int
	checked  string
}

var (
	tableMu sync.Mutex
	table   []row
)

// report adds a suite's figures to the table.
func report(suite string, cases, failures int, checked string) {
	tableMu.Lock()
	defer tableMu.Unlock()
	table = append(table, row{suite, cases, failures, checked})
}

// TestMain prints the table once every suite has run. The suites that run the
// real binary share one build, testkit.Binary. Started with launchEnv set, the
// binary is a launcher instead.
func TestMain(m *testing.M) {
	if os.Getenv(launchEnv) != "" {
		os.Exit(launch())
	}
	code := m.Run()
	printTable()
	testkit.RemoveBinaries()
	os.Exit(code)
}

func printTable() {
	tableMu.Lock()
	defer tableMu.Unlock()
	tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "SUITE\tCASES\tFAILURES\tCHECKED")
	total, failed := 0, 0
	for _, r := range table {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%s\n", r.suite, r.cases, r.failures, r.checked)
		total += r.cases
		failed += r.failures
	}
	tw.Flush()
	fmt.Printf("%d cases, %d failures (%s, %d CPUs)\n", total, failed, runtime.Version(), runtime.NumCPU())
}

// count reads a case count from the environment: CI sets small ones, make
// reliability large ones.
func count(name string, fallback int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return fallback
}

// seed is RELIABILITY_SEED when set, so a failure can be replayed; else fallback.
func seed(fallback int64) int64 {
	if v, err := strconv.ParseInt(os.Getenv("RELIABILITY_SEED"), 10, 64); err == nil {
		return v
	}
	return fallback
}
