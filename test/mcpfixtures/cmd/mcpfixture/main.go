// Command mcpfixture is a stdio MCP server for tests (see package
// mcpfixtures). With -mode=hang it reads its input and never answers, to
// play a server that never completes initialize.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/beamclaw/beamclaw-go/test/mcpfixtures"
	"github.com/mark3labs/mcp-go/server"
)

func main() {
	mode := flag.String("mode", "serve", "serve or hang")
	extra := flag.Int("extra-tools", 0, "number of extra tools")
	page := flag.Int("page-size", 0, "tools/list page size (0: no pagination)")
	echoDesc := flag.String("echo-description", "", "echo's description (default: the usual one)")
	flag.Parse()
	if err := run(*mode, mcpfixtures.Options{ExtraTools: *extra, PageSize: *page, EchoDescription: *echoDesc}); err != nil {
		fmt.Fprintln(os.Stderr, "mcpfixture:", err)
		os.Exit(1)
	}
}

func run(mode string, opts mcpfixtures.Options) error {
	switch mode {
	case "hang":
		_, err := io.Copy(io.Discard, os.Stdin)
		return err
	case "serve":
		s := mcpfixtures.NewServer(opts)
		return server.ServeStdio(s)
	}
	return fmt.Errorf("unknown mode %q", mode)
}
