package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/beamclaw/beamclaw-go/internal/mcp/oauth"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
)

const opCall = "mcp.call"

// emptySchema is offered when a server lists a tool without a schema.
var emptySchema = json.RawMessage(`{"type":"object","properties":{}}`)

// mcpTool is one discovered tool, routed to its server's live connection
// at call time (so a tool value outlives restarts).
type mcpTool struct {
	srv    *server
	name   string // exposed
	remote string // as the server names it
	desc   string
	schema json.RawMessage
	hash   string
}

var _ beamclaw.Tool = (*mcpTool)(nil)

// Spec: approval is required unless the server is trusted. A tool whose
// definition changed since its pin is disabled: it asks nothing and its
// Execute refuses with the reason, so the model (and the user) learn why.
func (t *mcpTool) Spec() beamclaw.ToolSpec {
	trusted := t.srv.cfg.Trust
	risk := beamclaw.RiskHigh
	if trusted {
		risk = beamclaw.RiskMedium
	}
	if t.srv.m.Changed(t.name) {
		trusted, risk = true, beamclaw.RiskLow
	}
	return beamclaw.ToolSpec{
		Def: beamclaw.ToolDef{
			Name:        t.name,
			Description: t.description(),
			Parameters:  t.parameters(),
			Source:      "mcp:" + t.srv.cfg.Name,
		},
		RequiresApproval: !trusted,
		MinAutonomy:      beamclaw.Supervised,
		Risk:             risk,
	}
}

func (t *mcpTool) description() string {
	if strings.TrimSpace(t.desc) != "" {
		return t.desc
	}
	return fmt.Sprintf("Tool %q of MCP server %q.", t.remote, t.srv.cfg.Name)
}

func (t *mcpTool) parameters() json.RawMessage {
	s := strings.TrimSpace(string(t.schema))
	if s == "" || s == "null" || s == "{}" {
		return emptySchema
	}
	return t.schema
}

func (t *mcpTool) info() ToolInfo {
	return ToolInfo{
		Name: t.name, Server: t.srv.cfg.Name, RemoteName: t.remote,
		Description: t.desc, InputSchema: t.parameters(), Hash: t.hash, Trusted: t.srv.cfg.Trust,
	}
}

// Execute calls the tool on the server's current connection with the
// server's per-call timeout, pinning its definition at the first run. A
// connection that dies mid-call fails the call at once with
// `mcp server "x" disconnected`; a tool whose definition changed since
// its pin is refused with the fix.
func (t *mcpTool) Execute(ctx context.Context, inv beamclaw.Invocation) (string, error) {
	res, notes, err := t.call(ctx, inv.Args)
	if err != nil {
		return "", err
	}
	text := FormatResult(res)
	for _, n := range notes {
		text += fmt.Sprintf("\n[the server asked the user a question during this call, and it was declined: %s]", n)
	}
	if res.IsError {
		if text == "" {
			text = "the tool reported an error"
		}
		return "", beamclaw.E(opCall, beamclaw.KindInvalid, text, ErrToolFailed)
	}
	return text, nil
}

// call runs tools/call with the checks every caller gets (a changed
// definition refused, the pin at first run) and maps its errors to kinds
// and words for the model and the user.
func (t *mcpTool) call(ctx context.Context, args json.RawMessage) (*mcpgo.CallToolResult, []string, error) {
	srv := t.srv.cfg.Name
	if t.srv.m.Changed(t.name) {
		return nil, nil, beamclaw.E(opCall, beamclaw.KindForbidden, fmt.Sprintf(
			"tool %s is disabled: the definition of %q on MCP server %q changed since it was approved "+
				"(a changed description or schema can smuggle instructions). Tell the user: review it with "+
				"`beamclaw mcp tools %s` and enable it with `beamclaw mcp accept %s %s`",
			t.name, t.remote, srv, srv, srv, t.remote), ErrToolChanged)
	}
	c, state := t.srv.current()
	if c == nil {
		return nil, nil, beamclaw.E(opCall, beamclaw.KindUnavailable,
			fmt.Sprintf("mcp server %q is not connected (%s)", srv, state), ErrNotConnected)
	}
	if err := t.srv.m.pinOnUse(t); err != nil {
		return nil, nil, beamclaw.E(opCall, beamclaw.KindUnavailable, "could not record the tool's definition", err)
	}
	start := t.srv.m.opts.Clock.Now()
	res, notes, err := c.callTool(ctx, t.remote, args, t.srv.cfg.timeout())
	t.srv.m.emit(beamclaw.EventMCPCall, slog.String("server", srv), slog.String("tool", t.remote),
		slog.Int64("duration_ms", t.srv.m.opts.Clock.Now().Sub(start).Milliseconds()), slog.Bool("success", err == nil))
	switch {
	case err == nil:
		return res, notes, nil
	case errors.Is(err, oauth.ErrInsufficientScope):
		t.srv.scopeWanted(err)
		return nil, notes, beamclaw.E(opCall, beamclaw.KindUnauthorized, fmt.Sprintf(
			"mcp server %q refused this call for lack of permission (%v). Tell the user to run `%s` to grant it",
			srv, err, LoginHint(srv)), err)
	case errors.Is(err, oauth.ErrLoginRequired):
		return nil, notes, beamclaw.E(opCall, beamclaw.KindUnauthorized, fmt.Sprintf(
			"mcp server %q refused beamclaw's credentials. Tell the user to run `%s`", srv, LoginHint(srv)), err)
	case errors.Is(err, ErrDisconnected):
		return nil, notes, beamclaw.E(opCall, beamclaw.KindUnavailable, fmt.Sprintf("mcp server %q disconnected", srv), err)
	case errors.Is(err, ErrTimeout):
		return nil, notes, beamclaw.E(opCall, beamclaw.KindTimeout,
			fmt.Sprintf("mcp tool %s timed out after %s", t.name, t.srv.cfg.timeout()), err)
	case ctx.Err() != nil:
		return nil, notes, fmt.Errorf("mcp tool %s: %w", t.name, ctx.Err())
	}
	return nil, notes, beamclaw.E(opCall, beamclaw.KindInvalid, fmt.Sprintf("mcp tool %s: %v", t.name, err), err)
}

// FormatResult renders a tools/call result as text for a model: text
// parts verbatim, other parts summarised, joined by newlines; structured
// content stands in when there is no content.
func FormatResult(res *mcpgo.CallToolResult) string {
	if res == nil {
		return ""
	}
	parts := make([]string, 0, len(res.Content))
	for _, c := range res.Content {
		if s := formatContent(c); s != "" {
			parts = append(parts, s)
		}
	}
	if len(parts) == 0 && res.StructuredContent != nil {
		if b, err := json.Marshal(res.StructuredContent); err == nil {
			parts = append(parts, string(b))
		}
	}
	return strings.Join(parts, "\n")
}

func formatContent(c mcpgo.Content) string {
	switch v := c.(type) {
	case mcpgo.TextContent:
		return v.Text
	case *mcpgo.TextContent:
		return v.Text
	case mcpgo.ImageContent:
		return fmt.Sprintf("[image %s, %d bytes base64]", v.MIMEType, len(v.Data))
	case mcpgo.AudioContent:
		return fmt.Sprintf("[audio %s, %d bytes base64]", v.MIMEType, len(v.Data))
	case mcpgo.ResourceLink:
		return fmt.Sprintf("[resource link %s %s]", v.URI, v.Name)
	case mcpgo.EmbeddedResource:
		return formatResource(v.Resource)
	}
	return fmt.Sprintf("[%T content]", c)
}

func formatResource(r mcpgo.ResourceContents) string {
	switch v := r.(type) {
	case mcpgo.TextResourceContents:
		return fmt.Sprintf("[resource %s]\n%s", v.URI, v.Text)
	case mcpgo.BlobResourceContents:
		return fmt.Sprintf("[resource %s: %s, %d bytes base64]", v.URI, v.MIMEType, len(v.Blob))
	}
	return "[resource]"
}
