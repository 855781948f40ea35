package watch

import (
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

func get(t *testing.T, tr *Tracker, path string) (int, map[string]any) {
	t.Helper()
	rec := httptest.NewRecorder()
	tr.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
	var body map[string]any
	if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil {
		t.Fatalf("%s: %v: %s", path, err, rec.Body)
	}
	return rec.Code, body
}

// A dev container or pod must stay in service for a conflict a person is entitled
// to keep, and for deletes that only wait; anything else a run can come to is not
// ready.
func TestReadyAfterARunThatMadeEveryChangeItCould(t *testing.T) {
	tr := &Tracker{}
	if code, body := get(t, tr, "/readyz"); code != http.StatusServiceUnavailable || body["ready"] != false || body["lastRun"] != nil {
		t.Errorf("before any run: %d %v", code, body)
	}
	for result, ready := range map[Result]bool{
		Converged: true, Conflicts: true, Settling: true,
		ChangesPending: false, Refused: false, Failed: false, Invalid: false,
	} {
		tr.Record(Report{Result: result, Counts: map[string]int{}})
		code, body := get(t, tr, "/readyz")
		if tr.Ready() != ready || (code == http.StatusOK) != ready || body["ready"] != ready {
			t.Errorf("%s: Ready()=%v, /readyz %d %v; want ready=%v", result, tr.Ready(), code, body, ready)
		}
	}
}

func TestHealthzIsAliveWhileTheLoopRunsAndIsNotStuck(t *testing.T) {
	tr := &Tracker{stuckAfter: time.Minute}
	if code, _ := get(t, tr, "/healthz"); code != http.StatusServiceUnavailable {
		t.Errorf("before the loop starts: %d", code)
	}
	tr.setAlive(true)
	tr.setWatch(watchState{Inotify: 3, Polled: 1, PollMS: 1000})
	code, body := get(t, tr, "/healthz")
	if watch, _ := body["watch"].(map[string]any); code != http.StatusOK || body["alive"] != true || watch["polled"] != 1.0 {
		t.Errorf("running: %d %v", code, body)
	}
	tr.runStarted(time.Now().Add(-2 * time.Minute))
	if code, _ := get(t, tr, "/healthz"); code != http.StatusServiceUnavailable {
		t.Errorf("a run started two minutes ago, stuck after one: %d", code)
	}
	tr.Record(Report{Result: Converged})
	if code, _ := get(t, tr, "/healthz"); code != http.StatusOK {
		t.Errorf("once the run ended: %d", code)
	}
	tr.setAlive(false)
	if code, _ := get(t, tr, "/healthz"); code != http.StatusServiceUnavailable {
		t.Errorf("stopped: %d", code)
	}
}

// An MCP source that fails keeps the watcher unready, naming it, until it answers.
func TestSourceFailureMakesItUnready(t *testing.T) {
	var tr Tracker
	tr.Record(Report{Result: Converged})
	if !tr.Ready() {
		t.Fatal("not ready after a converged run")
	}
	tr.SetSource("tracker", errors.New("connect: EOF"))
	if tr.Ready() {
		t.Error("ready while an MCP source fails")
	}
	rec := httptest.NewRecorder()
	tr.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/readyz", nil))
	if rec.Code != 503 || !strings.Contains(rec.Body.String(), `"tracker":"connect: EOF"`) {
		t.Errorf("/readyz: %d %s", rec.Code, rec.Body)
	}
	tr.SetSource("tracker", nil)
	if !tr.Ready() {
		t.Error("not ready once the source answers again")
	}
}

// A client that asks and never reads holds its answer in the network, not the
// tracker: the runs go on, and so do other clients' answers.
func TestASlowReaderHoldsUpNoRun(t *testing.T) {
	tr := &Tracker{}
	tr.setAlive(true)
	// An answer far larger than the socket buffers, as thousands of invalid
	// inputs make one.
	tr.Record(Report{Result: Invalid, Error: strings.Repeat("registry/caps.yaml:1:1: a problem. ", 1<<19)})
	srv := httptest.NewServer(tr.Handler())
	defer srv.Close()
	conn, err := net.Dial("tcp", srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.(*net.TCPConn).SetReadBuffer(1024)
	if _, err := conn.Write([]byte("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")); err != nil {
		t.Fatal(err)
	}
	// The handler has started to write when the first bytes arrive.
	if _, err := conn.Read(make([]byte, 1)); err != nil {
		t.Fatal(err)
	}
	recorded := make(chan struct{})
	go func() {
		tr.runStarted(time.Now())
		tr.Record(Report{Result: Converged})
		close(recorded)
	}()
	select {
	case <-recorded:
	case <-time.After(time.Minute):
		t.Fatal("a run could not record its report while a client read its answer slowly")
	}
	if code, _ := get(t, tr, "/readyz"); code != http.StatusOK {
		t.Errorf("/readyz after the run: %d", code)
	}
}
