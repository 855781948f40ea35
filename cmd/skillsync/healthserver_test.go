package main

import (
	"net"
	"net/http"
	"testing"

	"github.com/skillsync/skillsync/controller/watch"
)

// The health endpoints on loopback answer only requests for this machine: a
// web page whose name an attacker points at 127.0.0.1 reads nothing of them.
func TestHealthOnLoopbackAnswersOnlyThisMachine(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := healthServer(&watch.Tracker{}, ln.Addr().String())
	go srv.Serve(ln)
	defer srv.Close()
	for host, want := range map[string]int{
		"attacker.example": http.StatusForbidden,
		"localhost":        http.StatusServiceUnavailable,
		ln.Addr().String(): http.StatusServiceUnavailable,
	} {
		req, err := http.NewRequest(http.MethodGet, "http://"+ln.Addr().String()+"/readyz", nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Host = host
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("/readyz for host %s: %d, want %d", host, resp.StatusCode, want)
		}
	}
	if srv.IdleTimeout == 0 || srv.WriteTimeout == 0 || srv.ReadTimeout == 0 {
		t.Errorf("a client can hold a connection forever: %+v", srv)
	}
}
