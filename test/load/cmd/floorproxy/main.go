// Command floorproxy is the floor of the load benchmark: a bare Go reverse
// proxy (net/http/httputil, nothing else) in front of the fake provider.
// What it adds over calling the fake directly is the least any gateway in
// Go can add; bench-load prints beamclaw's figures beside it.
//
// Usage:
//
//	floorproxy -addr 127.0.0.1:0 -to http://127.0.0.1:PORT
//
// On start it prints one line, "floorproxy listening on http://HOST:PORT".
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	if err := run(context.Background(), os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "floorproxy:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("floorproxy", flag.ContinueOnError)
	addr := fs.String("addr", "127.0.0.1:0", "address to listen on")
	to := fs.String("to", "", "upstream base URL (the fake provider, without /v1)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	u, err := url.Parse(*to)
	if err != nil || u.Host == "" {
		return fmt.Errorf("-to %q: want http://HOST:PORT", *to)
	}
	rp := httputil.NewSingleHostReverseProxy(u)
	rp.FlushInterval = -1 // stream chunks as they come, as beamclaw does
	rp.Transport = &http.Transport{MaxIdleConnsPerHost: 256}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: rp}
	fmt.Fprintf(stdout, "floorproxy listening on http://%s\n", ln.Addr())
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		<-ctx.Done()
		_ = srv.Close()
	}()
	if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
