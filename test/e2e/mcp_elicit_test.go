package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/beamclaw/beamclaw-go/pkg/client"
	"github.com/beamclaw/beamclaw-go/pkg/protocol"
)

// elicitHome runs a daemon with the fixture server (whose ask tool asks
// the user through an MCP elicitation), trusted.
func elicitHome(t *testing.T) (*home, string) {
	t.Helper()
	bin := mcpBuildFixture(t)
	h, _, addr := mcpHome(t, fmt.Sprintf("mcp:\n  servers:\n    - name: fx\n      command: %q\n      trust: true\n", bin))
	h.waitMCPState("fx", "ready", 60*time.Second)
	return h, addr
}

func dialWS(t *testing.T, addr, user string) *client.Conn {
	t.Helper()
	c := client.NewTCP("http://"+addr, "")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, err := c.Dial(ctx, "default", client.DialOptions{User: user})
	if err != nil {
		t.Fatalf("dial /ws: %v", err)
	}
	t.Cleanup(func() { _ = conn.Close(); c.Close() })
	return conn
}

// nextFrame reads frames until one satisfies want.
func nextFrame(t *testing.T, conn *client.Conn, what string, want func(protocol.ServerFrame) bool) protocol.ServerFrame {
	t.Helper()
	timeout := time.After(30 * time.Second)
	for {
		select {
		case f, ok := <-conn.Events():
			if !ok {
				t.Fatalf("connection ended waiting for %s: %v", what, conn.Err())
			}
			if want(f) {
				return f
			}
		case <-timeout:
			t.Fatalf("no %s in time", what)
		}
	}
}

// TestMCPElicitationOverWS (issue 16): an MCP server's question during a
// tool call reaches the /ws client that sent the message as an
// elicitation frame; another connection of the same user cannot answer
// it; the answer (with the schema's default for the field left out) goes
// back to the server and its result to the model. The OpenAI-compatible
// API cannot be asked: the call is declined and the result says why.
func TestMCPElicitationOverWS(t *testing.T) {
	_, addr := elicitHome(t)
	conn := dialWS(t, addr, "alice")
	other := dialWS(t, addr, "alice")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := conn.Send(ctx, "call tool fx__ask {}"); err != nil {
		t.Fatal(err)
	}
	f := nextFrame(t, conn, "an elicitation frame", func(f protocol.ServerFrame) bool { return f.Type == protocol.FrameElicitation })
	el := f.Elicitation
	if el == nil || el.Source != "mcp:fx" || !strings.Contains(el.Message, "which color") || !strings.Contains(string(el.Schema), `"default":"Ada"`) {
		t.Fatalf("elicitation frame = %+v", el)
	}
	if err := other.Answer(el.ID, "accept", map[string]any{"color": "blue"}); err != nil {
		t.Fatal(err)
	}
	if e := nextFrame(t, other, "an error frame", func(f protocol.ServerFrame) bool { return f.Type == protocol.FrameError }); e.Code != protocol.CodeNotFound {
		t.Errorf("an answer from another connection got %+v", e)
	}
	if err := conn.Answer(el.ID, "accept", map[string]any{"color": "red"}); err != nil {
		t.Fatal(err)
	}
	final := nextFrame(t, conn, "the final frame", func(f protocol.ServerFrame) bool { return f.Type == protocol.FrameFinal })
	if want := `tool fx__ask said: answer: accept {"color":"red","name":"Ada"}`; final.Text != want {
		t.Errorf("final = %q, want %q", final.Text, want)
	}

	answer := mcpChat(t, addr, "call tool fx__ask {}")
	if !strings.Contains(answer, "answer: decline") || !strings.Contains(answer, "cannot put a question to the user") {
		t.Errorf("over the OpenAI API the question was not declined with the reason: %q", answer)
	}
}

// TestMCPElicitationFromTUI (issue 16): the same question answered in the
// terminal UI, field by field, Enter taking the default.
func TestMCPElicitationFromTUI(t *testing.T) {
	h, _ := elicitHome(t)
	tm := startTerm(t, h.env, h.tuiCommand())
	tm.waitText("default · connected", 30*time.Second)
	tm.typeLine("call tool fx__ask {}")
	tm.waitText("mcp:fx asks: Who are you, and which color?", 30*time.Second)
	tm.waitText("color [one of red, blue; required]", 30*time.Second)
	tm.typeLine("green")
	tm.waitText(`"green" is not one of red, blue`, 30*time.Second)
	tm.typeLine("blue")
	tm.waitText("Your name (name) [default Ada]", 30*time.Second)
	tm.keys("Enter")
	s := tm.waitText(`answer: accept {"color":"blue","name":"Ada"}`, 30*time.Second)
	if !strings.Contains(s, "Answered: color=blue (mcp:fx)") {
		t.Errorf("no line says what was answered; screen:\n%s", s)
	}
}
