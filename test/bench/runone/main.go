//go:build linux

package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"time"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: runone COMMAND [ARG...] 3>report")
		os.Exit(2)
	}
	report := os.NewFile(3, "report")
	cmd := exec.Command(os.Args[1], os.Args[2:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start)
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		fmt.Fprintln(os.Stderr, "runone:", err)
		os.Exit(127)
	}
	var rssKB int64
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		rssKB = ru.Maxrss
	}
	if _, err := fmt.Fprintf(report, "%d %d\n", wall.Nanoseconds(), rssKB); err != nil {
		fmt.Fprintln(os.Stderr, "runone: report:", err)
		os.Exit(127)
	}
	code := cmd.ProcessState.ExitCode()
	if code < 0 {
		code = 128 // killed by a signal
	}
	os.Exit(code)
}
