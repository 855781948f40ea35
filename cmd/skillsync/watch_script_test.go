package main

import (
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

// awaitLimit bounds every wait in the watch scripts. It is a limit on a condition,
// not a timing assertion: a healthy run meets the condition in milliseconds.
const awaitLimit = 30 * time.Second

// scriptCmdFreeport sets VAR to a free 127.0.0.1 address.
//
//	freeport VAR
func scriptCmdFreeport(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: freeport VAR")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	ts.Check(err)
	addr := ln.Addr().String()
	ln.Close()
	ts.Setenv(args[0], addr)
}

// scriptCmdAwait waits until PATH exists (or, with !, until it does not).
//
//	[!] await PATH
func scriptCmdAwait(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 {
		ts.Fatalf("usage: [!] await PATH")
	}
	path := ts.MkAbs(args[0])
	for deadline := time.Now().Add(awaitLimit); ; time.Sleep(10 * time.Millisecond) {
		_, err := os.Lstat(path)
		if (err == nil) != neg {
			return
		}
		if time.Now().After(deadline) {
			ts.Fatalf("%s: still exists=%v after %s", args[0], err == nil, awaitLimit)
		}
	}
}

// scriptCmdAwaitText waits until the file at PATH holds TEXT.
//
//	await-text PATH TEXT
func scriptCmdAwaitText(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: await-text PATH TEXT")
	}
	path := ts.MkAbs(args[0])
	for deadline := time.Now().Add(awaitLimit); ; time.Sleep(10 * time.Millisecond) {
		if data, err := os.ReadFile(path); err == nil && strings.Contains(string(data), args[1]) {
			return
		}
		if time.Now().After(deadline) {
			ts.Fatalf("%s: no %q after %s", args[0], args[1], awaitLimit)
		}
	}
}

// scriptCmdAwaitHTTP polls URL until it answers with status CODE and a body holding
// TEXT, then writes the body to FILE.
//
//	await-http URL CODE TEXT FILE
func scriptCmdAwaitHTTP(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 4 {
		ts.Fatalf("usage: await-http URL CODE TEXT FILE")
	}
	want, err := strconv.Atoi(args[1])
	ts.Check(err)
	last := ""
	for deadline := time.Now().Add(awaitLimit); ; time.Sleep(10 * time.Millisecond) {
		resp, err := http.Get(args[0])
		if err == nil {
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			last = strconv.Itoa(resp.StatusCode) + " " + string(body)
			if resp.StatusCode == want && strings.Contains(string(body), args[2]) {
				ts.Check(os.WriteFile(ts.MkAbs(args[3]), body, 0o644))
				return
			}
		} else {
			last = err.Error()
		}
		if time.Now().After(deadline) {
			ts.Fatalf("%s never answered %d with %q; last: %s", args[0], want, args[2], last)
		}
	}
}
