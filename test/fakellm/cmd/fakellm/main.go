// Command fakellm runs the scripted fake OpenAI API of package fakellm as
// a standalone server, for demos and for end-to-end tests that drive the
// real beamclaw binary; it also speaks Anthropic's Messages API (POST
// /v1/messages). Unscripted chat requests follow fakellm.Rules
// (echo; "call tool NAME {json}"; "fail 429"). Out-of-process tests queue
// replies with POST /__script and read what was received at GET /__requests.
//
// Usage:
//
//	fakellm [-addr 127.0.0.1:8089] [-script replies.json] [-echo [-stream-chunks N -chunk-delay D]]
//
// On start it prints one line, "fakellm listening on http://HOST:PORT/v1".
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/beamclaw/beamclaw-go/test/fakellm"
)

func main() {
	if err := run(context.Background(), os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "fakellm:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("fakellm", flag.ContinueOnError)
	addr := fs.String("addr", "127.0.0.1:8089", "address to listen on (port 0 picks a free one)")
	script := fs.String("script", "", "JSON file with a list of replies to serve first")
	echo := fs.Bool("echo", false, "answer unscripted requests with a plain echo instead of the rules")
	chunks := fs.Int("stream-chunks", 0, "with -echo: stream each answer as this many chunks (a slow model, for time to first token)")
	delay := fs.Duration("chunk-delay", 0, "with -stream-chunks: the pause before each chunk")
	if err := fs.Parse(args); err != nil {
		return err
	}
	var replies []fakellm.Reply
	if *script != "" {
		b, err := os.ReadFile(*script)
		if err != nil {
			return fmt.Errorf("read script: %w", err)
		}
		if err := json.Unmarshal(b, &replies); err != nil {
			return fmt.Errorf("parse script %s: %w", *script, err)
		}
	}
	srv, err := fakellm.Listen(*addr)
	if err != nil {
		return err
	}
	defer srv.Close()
	switch {
	case !*echo:
		srv.SetDefault(fakellm.Rules)
	case *chunks > 0:
		srv.SetDefault(slowEcho(*chunks, *delay))
	}
	srv.Script(replies...)
	fmt.Fprintf(stdout, "fakellm listening on %s\n", srv.URL())
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	<-ctx.Done()
	return nil
}

// slowEcho answers like Echo, as n chunks each after a pause of delay.
func slowEcho(n int, delay time.Duration) fakellm.Responder {
	return func(req fakellm.Request) fakellm.Reply {
		r := fakellm.Echo(req)
		parts := make([]string, n)
		for i := range parts {
			parts[i] = "w "
		}
		parts[0] = r.Text + " "
		return fakellm.Reply{Chunks: parts, ChunkDelay: delay}
	}
}
