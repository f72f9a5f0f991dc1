package mcp

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
)

// BenchmarkToolCall compares an echo call through the Manager with the
// same call made directly with mcp-go's client on the same fixture server:
//
//	go test -run '^$' -bench ToolCall -benchmem ./internal/mcp/
func BenchmarkToolCall(b *testing.B) {
	b.Run("manager", func(b *testing.B) {
		m := run(b, Options{Servers: []ServerConfig{fixture("fx")}})
		waitReady(b, m, "fx")
		tool, _ := m.Lookup("fx__echo")
		inv := beamclaw.Invocation{Args: []byte(`{"message":"bench"}`)}
		measure(b, func(ctx context.Context) error {
			_, err := tool.Execute(ctx, inv)
			return err
		})
	})
	b.Run("direct", func(b *testing.B) {
		cl := client.NewClient(transport.NewStdio(fixtureBin, nil), client.WithProtocolVersion(DefaultProtocolVersion))
		ctx := context.Background()
		if err := cl.Start(ctx); err != nil {
			b.Fatal(err)
		}
		defer cl.Close()
		init := mcpgo.InitializeRequest{}
		init.Params.ProtocolVersion = DefaultProtocolVersion
		init.Params.ClientInfo = mcpgo.Implementation{Name: "bench", Version: "1"}
		if _, err := cl.Initialize(ctx, init); err != nil {
			b.Fatal(err)
		}
		req := mcpgo.CallToolRequest{}
		req.Params.Name = "echo"
		req.Params.Arguments = map[string]any{"message": "bench"}
		measure(b, func(ctx context.Context) error {
			_, err := cl.CallTool(ctx, req)
			return err
		})
	})
}

// measure runs fn b.N times and reports p50 and p99 latency.
func measure(b *testing.B, fn func(context.Context) error) {
	b.Helper()
	ctx := context.Background()
	lat := make([]time.Duration, 0, b.N)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		start := time.Now()
		if err := fn(ctx); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(start))
	}
	b.StopTimer()
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
}
