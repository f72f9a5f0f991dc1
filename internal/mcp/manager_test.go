package mcp

import (
	"context"
	"errors"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	mcpserver "github.com/mark3labs/mcp-go/server"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/obs/obstest"
	"github.com/beamclaw/beamclaw-go/test/mcpfixtures"
)

var fixtureTools = []string{"fx__add", "fx__ask", "fx__crash", "fx__echo", "fx__fail", "fx__image", "fx__mutate", "fx__sleep"}

func TestStdioDiscoveryAndCalls(t *testing.T) {
	m := run(t, Options{Servers: []ServerConfig{fixture("fx")}})
	waitReady(t, m, "fx")

	if diff := cmp.Diff(fixtureTools, toolNames(m.Tools())); diff != "" {
		t.Fatalf("Tools() (-want +got):\n%s", diff)
	}
	echo, _ := m.Lookup("fx__echo")
	spec := echo.Spec()
	want := beamclaw.ToolSpec{
		Def: beamclaw.ToolDef{Name: "fx__echo", Description: "Echoes the message back.", Source: "mcp:fx",
			Parameters: spec.Def.Parameters},
		RequiresApproval: true, MinAutonomy: beamclaw.Supervised, Risk: beamclaw.RiskHigh,
	}
	if diff := cmp.Diff(want, spec); diff != "" {
		t.Errorf("Spec (-want +got):\n%s", diff)
	}
	if !strings.Contains(string(spec.Def.Parameters), `"message"`) {
		t.Errorf("schema %s lacks the message property", spec.Def.Parameters)
	}

	tests := []struct {
		name, tool, args string
		want             string
		wantErr          error
	}{
		{"echo", "fx__echo", `{"message":"hi"}`, "Echo: hi", nil},
		{"add", "fx__add", `{"a":2,"b":3}`, "5", nil},
		{"image summarised", "fx__image", ``, "a picture\n[image image/png, 12 bytes base64]", nil},
		{"tool error", "fx__fail", `{}`, "", ErrToolFailed},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := call(t, m, tc.tool, tc.args)
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("err = %v, want %v", err, tc.wantErr)
			}
			if got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
	_, err := call(t, m, "fx__fail", `{}`)
	if msg := beamclaw.UserMessage(err); msg != "fixture failure" {
		t.Errorf("UserMessage = %q, want the tool's text", msg)
	}
	st := stateOf(m, "fx")
	if st.Tools != len(fixtureTools) || st.Transport != TransportStdio || st.Restarts != 0 {
		t.Errorf("status = %+v", st)
	}
}

func TestHTTPTransport(t *testing.T) {
	srv := httptest.NewServer(mcpserver.NewStreamableHTTPServer(mcpfixtures.NewServer(mcpfixtures.Options{})))
	t.Cleanup(srv.Close) // after the manager's cleanup has closed its sessions
	m := run(t, Options{Servers: []ServerConfig{{
		Name: "web", Transport: TransportHTTP, URL: srv.URL, Enabled: true, Trust: true,
		Headers: map[string]string{"X-Test": "1"},
	}}})
	waitReady(t, m, "web")
	got, err := call(t, m, "web__echo", `{"message":"over http"}`)
	if err != nil || got != "Echo: over http" {
		t.Fatalf("echo = %q, %v", got, err)
	}
	tool, _ := m.Lookup("web__echo")
	if s := tool.Spec(); s.RequiresApproval || s.Risk != beamclaw.RiskMedium {
		t.Errorf("trusted server tool spec = %+v", s)
	}
}

func TestPagination(t *testing.T) {
	m := run(t, Options{Servers: []ServerConfig{fixture("pg", "-page-size", "2", "-extra-tools", "5")}})
	waitReady(t, m, "pg")
	if n := len(m.ToolInfos("pg")); n != len(fixtureTools)+5 {
		t.Fatalf("got %d tools over pages, want %d", n, len(fixtureTools)+5)
	}
}

func TestCrashMidCallFailsFastAndRestarts(t *testing.T) {
	cfg := fixture("fx")
	cfg.Timeout = 5 * time.Minute // only disconnect detection can end the call early
	m := run(t, Options{Servers: []ServerConfig{cfg}, Clock: &instantClock{}})
	waitReady(t, m, "fx")

	start := time.Now()
	_, err := call(t, m, "fx__crash", `{}`)
	elapsed := time.Since(start)
	t.Logf("crash call failed after %v: %v", elapsed, err)
	if !errors.Is(err, ErrDisconnected) {
		t.Fatalf("err = %v, want ErrDisconnected", err)
	}
	if msg := beamclaw.UserMessage(err); msg != `mcp server "fx" disconnected` {
		t.Errorf("UserMessage = %q", msg)
	}
	waitFor(t, "restart", func() bool {
		st := stateOf(m, "fx")
		return st.State == StateReady && st.Restarts == 1
	})
	if !strings.Contains(stateOf(m, "fx").LastError, "process exited") {
		t.Errorf("LastError = %q", stateOf(m, "fx").LastError)
	}
	if got, err := call(t, m, "fx__echo", `{"message":"back"}`); err != nil || got != "Echo: back" {
		t.Fatalf("echo after restart = %q, %v", got, err)
	}
}

func TestToolsDisappearWhileDown(t *testing.T) {
	clock := &gateClock{release: make(chan time.Time)}
	m := run(t, Options{Servers: []ServerConfig{fixture("fx")}, Clock: clock})
	waitReady(t, m, "fx")
	echo, _ := m.Lookup("fx__echo")
	if _, err := call(t, m, "fx__crash", `{}`); !errors.Is(err, ErrDisconnected) {
		t.Fatalf("crash: %v", err)
	}
	waitFor(t, "restarting", func() bool { return stateOf(m, "fx").State == StateRestarting })
	if got := m.Tools(); len(got) != 0 {
		t.Errorf("Tools() while down = %v", toolNames(got))
	}
	_, err := echo.Execute(context.Background(), beamclaw.Invocation{Args: []byte(`{"message":"x"}`)})
	if !errors.Is(err, ErrNotConnected) {
		t.Errorf("call while down: %v, want ErrNotConnected", err)
	}
	close(clock.release) // end the backoff
	waitReady(t, m, "fx")
	if len(m.Tools()) != len(fixtureTools) {
		t.Errorf("tools not back: %v", toolNames(m.Tools()))
	}
}

// gateClock holds every backoff until release is closed.
type gateClock struct {
	realTimers
	release chan time.Time
}

func (c *gateClock) Now() time.Time { return time.Now() }
func (c *gateClock) After(d time.Duration) <-chan time.Time {
	if d > 10*time.Second {
		return make(chan time.Time)
	}
	return c.release
}

func TestNeverAnswersInitializeIsMarkedFailed(t *testing.T) {
	hang := fixture("hang", "-mode", "hang")
	hang.Timeout = 100 * time.Millisecond
	var events obstest.Recorder
	m := run(t, Options{
		Servers: []ServerConfig{hang, fixture("ok")},
		Clock:   &instantClock{},
		Emit:    events.Record,
	})
	waitFor(t, "hang failed", func() bool { return stateOf(m, "hang").State == StateFailed })
	waitReady(t, m, "ok")

	st := stateOf(m, "hang")
	if st.Restarts != 5 || st.Tools != 0 || !strings.Contains(st.LastError, "timed out") {
		t.Errorf("hang status = %+v", st)
	}
	if got, err := call(t, m, "ok__echo", `{"message":"fine"}`); err != nil || got != "Echo: fine" {
		t.Errorf("healthy server call = %q, %v", got, err)
	}
	if names := toolNames(m.Tools()); len(names) != len(fixtureTools) || !strings.HasPrefix(names[0], "ok__") {
		t.Errorf("Tools() = %v", names)
	}
	failed := 0
	for _, e := range events.Named("mcp_server_state") {
		if attr(e, "server") == "hang" && attr(e, "state") == string(StateFailed) {
			failed++
		}
	}
	if failed != 1 {
		t.Errorf("failed state events = %d, want 1", failed)
	}
}

func TestFailedServiceIsNotRestarted(t *testing.T) {
	m, err := New(Options{Servers: []ServerConfig{{Name: "x", Command: "/nonexistent/mcp", Enabled: true}}, Clock: &instantClock{}})
	if err != nil {
		t.Fatal(err)
	}
	svc := m.Services()[0]
	var last error
	for range 6 {
		last = svc.Serve(context.Background())
	}
	if !errors.Is(last, ErrFailed) || stateOf(m, "x").State != StateFailed {
		t.Fatalf("after 6 failures: %v, state %s", last, stateOf(m, "x").State)
	}
	if err := svc.Serve(context.Background()); !errors.Is(err, ErrFailed) {
		t.Errorf("Serve on a failed server = %v", err)
	}
}

func TestListChangedDisablesChangedDefinitions(t *testing.T) {
	var events obstest.Recorder
	cfg := fixture("fx")
	cfg.Trust = true
	pins := NewMemPinStore()
	m := run(t, Options{Servers: []ServerConfig{cfg}, Pins: pins, Emit: events.Record})
	waitReady(t, m, "fx")
	// A trusted server's tools are pinned at their first run.
	if _, err := call(t, m, "fx__echo", `{"message":"hi"}`); err != nil {
		t.Fatalf("echo: %v", err)
	}
	if _, ok, _ := pins.Get("fx__echo"); !ok {
		t.Fatal("the first run of fx__echo did not pin it")
	}
	if err := m.Pin("fx__add"); err != nil {
		t.Fatalf("Pin(add): %v", err)
	}
	if _, err := call(t, m, "fx__mutate", `{}`); err != nil {
		t.Fatalf("mutate: %v", err)
	}
	waitFor(t, "rediscovery", func() bool { _, ok := m.Lookup("fx__added"); return ok })

	if !m.Changed("fx__echo") || m.Changed("fx__add") {
		t.Errorf("Changed(echo)=%v Changed(add)=%v, want true false", m.Changed("fx__echo"), m.Changed("fx__add"))
	}
	if diff := cmp.Diff([]string{"fx__echo"}, stateOf(m, "fx").Changed); diff != "" {
		t.Errorf("Status.Changed (-want +got):\n%s", diff)
	}
	ev := events.Named("mcp_tool_changed")
	if len(ev) != 1 || attr(ev[0], "tool") != "fx__echo" || attr(ev[0], "server") != "fx" {
		t.Errorf("mcp_tool_changed events = %+v", ev)
	}
	if _, ok, _ := pins.Get("fx__echo"); !ok {
		t.Error("the pin of the changed tool was dropped: a restart would accept the new definition")
	}
	for _, tl := range m.Tools() {
		if tl.Spec().Def.Name == "fx__echo" {
			t.Error("the changed tool is still offered to the model")
		}
	}
	_, err := call(t, m, "fx__echo", `{"message":"hi"}`)
	if !errors.Is(err, ErrToolChanged) || !strings.Contains(err.Error(), "beamclaw mcp accept fx echo") {
		t.Errorf("call of the changed tool = %v, want it refused with the fix", err)
	}
	if name, err := m.Accept("fx", "echo"); err != nil || name != "fx__echo" || m.Changed("fx__echo") {
		t.Fatalf("Accept: %q %v, still changed %v", name, err, m.Changed("fx__echo"))
	}
	if got, err := call(t, m, "fx__echo", `{"message":"back"}`); err != nil || got != "Echo: back" {
		t.Errorf("echo after accept = %q, %v", got, err)
	}
	if _, err := m.Accept("fx", "nope"); !errors.Is(err, ErrUnknownTool) {
		t.Errorf("Accept of an unknown tool = %v", err)
	}
}

// TestChangedDefinitionSurvivesRestart: the pin is kept, so a new Manager
// (a restarted daemon) over the same pins finds the same change.
func TestChangedDefinitionSurvivesRestart(t *testing.T) {
	pins := NewMemPinStore()
	if err := pins.Put("fx__echo", "0000"); err != nil {
		t.Fatal(err)
	}
	var events obstest.Recorder
	m := run(t, Options{Servers: []ServerConfig{fixture("fx")}, Pins: pins, Emit: events.Record})
	waitReady(t, m, "fx")
	if !m.Changed("fx__echo") || len(events.Named("mcp_tool_changed")) != 1 {
		t.Fatalf("changed %v, events %+v", m.Changed("fx__echo"), events.Named("mcp_tool_changed"))
	}
	echo, _ := m.Lookup("fx__echo")
	if echo.Spec().RequiresApproval {
		t.Error("a disabled tool asks for approval before it refuses")
	}
}

func TestAgentsFilter(t *testing.T) {
	cfg := fixture("fx")
	cfg.Agents = []string{"alpha"}
	m := run(t, Options{Servers: []ServerConfig{cfg}})
	waitReady(t, m, "fx")
	if got := m.ToolsFor("beta"); len(got) != 0 {
		t.Errorf("ToolsFor(beta) = %v", toolNames(got))
	}
	if got := m.ToolsFor("alpha"); len(got) != len(fixtureTools) {
		t.Errorf("ToolsFor(alpha) = %v", toolNames(got))
	}
	if _, ok := m.LookupFor("beta", "fx__echo"); ok {
		t.Error("LookupFor(beta) found a tool of a server beta may not use")
	}
}

func TestDisabledServer(t *testing.T) {
	cfg := fixture("off")
	cfg.Enabled = false
	m, err := New(Options{Servers: []ServerConfig{cfg}})
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Services()) != 0 || stateOf(m, "off").State != StateDisabled {
		t.Errorf("services %d, status %+v", len(m.Services()), m.Status())
	}
}

func TestNewValidates(t *testing.T) {
	_, err := New(Options{Servers: []ServerConfig{
		{Name: "a", Command: "x"}, {Name: "a", Command: "y"},
		{Name: "h", Transport: TransportHTTP}, {Name: "t", Transport: "sse", URL: "u"},
	}})
	for _, want := range []string{"duplicate name", "url is required", `transport "sse"`} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("err = %v, want it to mention %q", err, want)
		}
	}
}

func TestProbe(t *testing.T) {
	tools, err := Probe(context.Background(), fixture("fx"), Options{})
	if err != nil {
		t.Fatalf("Probe: %v", err)
	}
	var names []string
	for _, ti := range tools {
		names = append(names, ti.Name)
	}
	if diff := cmp.Diff(fixtureTools, names); diff != "" {
		t.Errorf("Probe tools (-want +got):\n%s", diff)
	}
	if _, err := Probe(context.Background(), ServerConfig{Name: "bad", Command: "/nonexistent/mcp"}, Options{}); err == nil {
		t.Error("Probe of a missing command succeeded")
	}
}

func TestHTTPConnectionDropMidCall(t *testing.T) {
	srv := httptest.NewServer(mcpserver.NewStreamableHTTPServer(mcpfixtures.NewServer(mcpfixtures.Options{})))
	t.Cleanup(srv.Close)
	m := run(t, Options{
		Servers: []ServerConfig{{Name: "web", Transport: TransportHTTP, URL: srv.URL, Enabled: true, Timeout: 5 * time.Minute}},
		Clock:   &instantClock{},
	})
	waitReady(t, m, "web")
	errc := make(chan error, 1)
	go func() {
		_, err := call(t, m, "web__sleep", `{"ms":60000}`)
		errc <- err
	}()
	waitFor(t, "call in flight", func() bool {
		srv.CloseClientConnections()
		select {
		case err := <-errc:
			errc <- err
			return true
		default:
			return false
		}
	})
	if err := <-errc; !errors.Is(err, ErrDisconnected) {
		t.Fatalf("err = %v, want ErrDisconnected", err)
	}
	// The polling above may have dropped a connection made after the
	// first reconnect too; a call on such a connection fails as
	// disconnected, and the next reconnect serves it.
	var got string
	waitFor(t, "reconnect and an echo", func() bool {
		st := stateOf(m, "web")
		if st.State != StateReady || st.Restarts < 1 {
			return false
		}
		var err error
		got, err = call(t, m, "web__echo", `{"message":"again"}`)
		if err != nil && !errors.Is(err, ErrDisconnected) {
			t.Fatalf("echo after reconnect: %v", err)
		}
		return err == nil
	})
	if got != "Echo: again" {
		t.Fatalf("echo after reconnect = %q", got)
	}
}
