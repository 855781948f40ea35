package main

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/skillsync/skillsync/controller"
	"github.com/skillsync/skillsync/controller/state"
	"github.com/skillsync/skillsync/controller/watch"
)

// watchFlags are the flags of the long-running controller, and the two that say
// how long a run waits: for the inputs to settle, and for another writer.
type watchFlags struct {
	debounce, maxWait, resync, poll, lockTimeout, settle time.Duration
	healthAddr                                           string
	followMCP                                            bool
}

// watchOnlyFlags make sense only for the watcher, and each implies --watch;
// lockTimeout only for one run.
var watchOnlyFlags = []string{"debounce", "max-wait", "resync", "poll", "health-addr", "follow-mcp"}

func (w *watchFlags) register(f *pflag.FlagSet) {
	f.DurationVar(&w.debounce, "debounce", 100*time.Millisecond, "watch: quiet period after the last change before a run")
	f.DurationVar(&w.maxWait, "max-wait", time.Second, "watch: longest a run waits for a quiet period")
	f.DurationVar(&w.resync, "resync", 5*time.Minute, "watch: full reconcile at least this often (0 turns it off)")
	f.DurationVar(&w.poll, "poll", 0, "watch: poll for changes this often instead of using inotify (network mounts)")
	f.BoolVar(&w.followMCP, "follow-mcp", true, "watch: keep a session to each MCP source and record its tools as they change (docs/mcp.md)")
	f.StringVar(&w.healthAddr, "health-addr", os.Getenv("SKILLSYNC_HEALTH_ADDR"), "watch: serve /healthz, /readyz and /metrics on this address, like :8081 (default $SKILLSYNC_HEALTH_ADDR)")
	f.DurationVar(&w.lockTimeout, "lock-timeout", 30*time.Second, "one run: how long to wait for another skillsync to release the workspace, and for inputs being saved to settle")
	f.DurationVar(&w.settle, "settle", 2*time.Second, "apply a delete only once the inputs it follows from have been unchanged this long (0: at once)")
}

// check says whether the command asks for the watcher, --watch or a flag only
// the watcher takes, and refuses a flag of one run beside it: --once, a flag of
// oneShotFlags, or --lock-timeout.
func (w *watchFlags) check(cmd *cobra.Command, watchFlag bool) (watching bool, err error) {
	f := cmd.Flags()
	if w.settle < 0 {
		return false, usageError("--settle must not be negative")
	}
	why := ""
	if watchFlag {
		why = "--watch"
	}
	for _, name := range watchOnlyFlags {
		if why == "" && f.Changed(name) {
			why = "--" + name + " (which implies --watch)"
		}
	}
	if why == "" {
		return false, nil
	}
	for _, name := range append([]string{"once", "lock-timeout"}, oneShotFlags...) {
		if f.Changed(name) {
			return true, usageError("--%s is for one run, and %s asks for the watcher; drop one of them", name, why)
		}
	}
	return true, nil
}

// runWatch runs the controller until SIGTERM or SIGINT: the first signal lets the
// current run finish and exits 0, a second one exits 1 at once.
func runWatch(g *globals, req controller.Request, w watchFlags) error {
	keepRunning()
	if w.debounce <= 0 || w.maxWait < w.debounce {
		return usageError("--debounce must be positive and --max-wait at least --debounce")
	}
	if w.poll < 0 || w.resync < 0 {
		return usageError("--poll and --resync must not be negative")
	}
	log := g.logger()
	lock, err := state.Acquire(req.System, req.Root, 0)
	if err != nil {
		return inputError(g.stderr, err)
	}
	defer lock.Release()
	if lock.TakenOver != 0 {
		log.Info("lock taken over", "deadPid", lock.TakenOver)
	}

	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	signals := make(chan os.Signal, 2)
	signal.Notify(signals, syscall.SIGTERM, syscall.SIGINT)
	defer signal.Stop(signals)
	go func() {
		sig := <-signals
		log.Info("stopping after the current run", "signal", sig.String())
		stop()
		sig = <-signals
		log.Info("second signal, exiting now", "signal", sig.String())
		os.Exit(exitChanges)
	}()

	build := readBuildInfo()
	tracker := &watch.Tracker{}
	if w.healthAddr != "" {
		ln, err := net.Listen("tcp", w.healthAddr)
		if err != nil {
			return &exitError{exitFailure, fmt.Errorf("--health-addr: %w", err)}
		}
		srv := healthServer(tracker, ln.Addr().String())
		go srv.Serve(ln)
		defer srv.Close()
		log.Info("serving health endpoints", "addr", ln.Addr().String())
	}
	var onTree func(context.Context, string)
	if w.followMCP {
		onTree = sourceFollowers(g, tracker, log)
	}
	log.Info("watching workspace", "root", req.Root, "poll", w.poll.String(), "debounceMs", w.debounce.Milliseconds())
	err = watch.Run(ctx, watch.Options{
		Request: req, Debounce: w.debounce, MaxWait: w.maxWait, Resync: w.resync, Poll: w.poll, PollFlag: "--poll", Health: tracker, Lock: lock, Log: log,
		OnTree: onTree, Build: watch.BuildInfo{Version: build.Version, Commit: build.Commit},
	})
	if err != nil {
		return inputError(g.stderr, err)
	}
	log.Info("stopped")
	return nil
}

// healthServer serves tracker's endpoints on addr. Its answers are small and
// quick: a client that reads or writes slowly is let go, and so is a
// connection that stays open doing nothing. On loopback it answers only
// requests for this machine, as serve does (loopbackHostOnly).
func healthServer(tracker *watch.Tracker, addr string) *http.Server {
	handler := tracker.Handler()
	if loopback(addr) {
		handler = loopbackHostOnly(handler)
	}
	return &http.Server{Handler: handler, ReadHeaderTimeout: 5 * time.Second, ReadTimeout: 10 * time.Second,
		WriteTimeout: 30 * time.Second, IdleTimeout: time.Minute}
}
