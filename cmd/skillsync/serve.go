package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os/signal"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"

	"github.com/skillsync/skillsync/controller"
	"github.com/skillsync/skillsync/controller/watch"
	"github.com/skillsync/skillsync/serve"
	"github.com/skillsync/skillsync/sources/mcp/skillserver"
	"github.com/skillsync/skillsync/sources/wellknown"
)

// serveFlags are serve's own flags.
type serveFlags struct {
	target, httpAddr, token string
	wellKnown               bool
	poll                    time.Duration
}

func newServeCommand(g *globals) *cobra.Command {
	var sf serveFlags
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve the workspace's skills for one client over MCP's skills extension; write nothing",
		Long: "Serve the skills the workspace gives one target directory (--target) to agents that have\n" +
			"no workspace of their own, through the MCP skills extension: skills/list and skills/get,\n" +
			"and each file of a skill as a skill:// resource, as skillsync renders it for that directory.\n" +
			"Over stdio by default, over Streamable HTTP at /mcp with --http. It follows the workspace as\n" +
			"the watcher does, and a change of the skills is announced to connected clients as a change\n" +
			"of the resource list. It reads the workspace and never writes it (docs/serve.md).\n" +
			"Over HTTP on an address other than loopback, --token names the bearer token clients send,\n" +
			"as ${VAR}, read from the environment.\n" +
			"Exit codes: 0 stopped by SIGTERM or SIGINT, 2 invalid input or usage at the start,\n" +
			"4 any other failure (the address taken, the workspace no longer followed).",
		Example: "  skillsync serve --target claude-code                  over stdio, for an MCP client to start\n" +
			"  skillsync serve --http 127.0.0.1:8765                 over Streamable HTTP on loopback\n" +
			"  skillsync serve --http :8765 --token '${SKILLS_TOKEN}'   on every address, behind a token",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runServe(g, sf) },
	}
	f := cmd.Flags()
	f.StringVar(&sf.target, "target", "claude-code", "the target directory whose skills to serve, by its name in spec.targets")
	f.StringVar(&sf.httpAddr, "http", "", "serve over Streamable HTTP at ADDR/mcp instead of stdio")
	f.StringVar(&sf.token, "token", "", "with --http: the bearer token clients must send, as ${VAR} read from the environment")
	f.BoolVar(&sf.wellKnown, "well-known", false, "with --http: also serve the workspace's skill directories as a discovery index at /"+wellknown.IndexPath+", as publish --well-known writes it")
	f.DurationVar(&sf.poll, "poll", 0, "look for changes of the workspace every D instead of receiving file events (network mounts)")
	return cmd
}

func runServe(g *globals, sf serveFlags) error {
	keepRunning()
	bearer, err := serveToken(sf.httpAddr, sf.token)
	if err != nil {
		return err
	}
	if sf.wellKnown && sf.httpAddr == "" {
		return usageError("--well-known serves a site over HTTP: give --http ADDR too")
	}
	if sf.poll < 0 {
		return usageError("--poll must not be negative")
	}
	root, err := g.root()
	if err != nil {
		return err
	}
	req := g.request(g.readOnly(), root, true)
	in, err := controller.LoadInputs(req)
	if err != nil {
		return inputError(g.stderr, err)
	}
	cat, err := serve.Catalog(in.Registry, in.Profile, sf.target)
	if err != nil {
		return &exitError{exitInvalid, err}
	}
	log := g.logger()
	server := mcp.NewServer(&mcp.Implementation{Name: "skillsync", Version: readBuildInfo().Version},
		&mcp.ServerOptions{Capabilities: skillserver.Capabilities()})
	pub := skillserver.Publish(server, cat)
	var site *siteFiles
	if sf.wellKnown {
		if site, err = publishedSite(g, in.Registry); err != nil {
			return err
		}
	}
	follow := func(out controller.Outcome) {
		if len(out.Problems) > 0 || out.Err != nil || !out.Planned {
			return // invalid input (a file cut off mid-save too) or a failure: what was served stays
		}
		if site != nil {
			if err := site.update(g, out.Registry); err != nil {
				log.Warn("cannot serve the workspace's skill directories as a site; serving those before", "err", err)
			}
		}
		if _, enabled := serve.TargetDir(out.Registry, sf.target); !enabled {
			log.Warn("the workspace no longer enables the target served; serving no skills", "target", sf.target)
			pub.Set(skillserver.Catalog{})
			return
		}
		cat, err := serve.Catalog(out.Registry, out.Profile, sf.target)
		if err != nil {
			log.Warn("cannot serve the workspace's skills; serving those before", "err", err)
			return
		}
		pub.Set(cat)
	}

	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	work, end := context.WithCancel(ctx)
	defer end()
	watching, serving := make(chan error, 1), make(chan error, 1)
	go func() {
		watching <- watch.Run(work, watch.Options{Request: req, Debounce: 100 * time.Millisecond, MaxWait: time.Second,
			Resync: 5 * time.Minute, Poll: sf.poll, PollFlag: "--poll", Health: &watch.Tracker{}, Log: slog.New(warnings{log.Handler()}), OnPass: follow})
	}()
	go func() {
		if sf.httpAddr == "" {
			log.Info("serving skills over stdio", "target", sf.target, "skills", len(cat.Entries))
			serving <- server.Run(work, pub.Transport(&mcp.StdioTransport{}))
			return
		}
		serving <- serveHTTP(work, log, sf.httpAddr, bearer, pub.Handler(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil)), site)
	}()
	// Whichever ends first ends the other: a server that no longer follows the
	// workspace would serve stale skills as current.
	var werr, serr error
	select {
	case werr = <-watching:
		end()
		serr = <-serving
		if werr == nil && ctx.Err() == nil {
			werr = errors.New("stopped following the workspace")
		}
	case serr = <-serving:
		end()
		werr = <-watching
	}
	signaled := ctx.Err() != nil
	switch {
	case werr != nil && !signaled:
		return &exitError{exitFailure, fmt.Errorf("following the workspace: %w", werr)}
	case serr != nil && !signaled && !errors.Is(serr, context.Canceled):
		return &exitError{exitFailure, serr}
	}
	return nil
}

// warnings passes on the records of level Warn and above: serve's passes plan
// and write nothing, and their "reconcile finished" would read as if a run
// had converged the workspace. Invalid input is still said, at its line.
type warnings struct{ slog.Handler }

func (w warnings) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= slog.LevelWarn && w.Handler.Enabled(ctx, l)
}

func (w warnings) WithAttrs(attrs []slog.Attr) slog.Handler {
	return warnings{w.Handler.WithAttrs(attrs)}
}

func (w warnings) WithGroup(name string) slog.Handler { return warnings{w.Handler.WithGroup(name)} }
