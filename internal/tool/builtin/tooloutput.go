package builtin

import (
	"context"
	"errors"
	"fmt"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/tool"
)

// toolOutputSchema and toolOutputDesc are short (the whole definition
// under 300 bytes), and the description's first line, which "# More
// tools" lists (DeferredByDefault), shorter still.
const toolOutputSchema = `{
  "type": "object",
  "properties": {"id": {"type": "string"}, "offset": {"type": "integer"}, "limit": {"type": "integer"}},
  "required": ["id"]
}`

const toolOutputDesc = "Read a cut tool result by pages.\nid from its note; offset, limit in bytes (default 0, a page; at most a page)."

// OutputReader reads the tool outputs a session kept whole
// (*session.Manager).
type OutputReader interface {
	// Output returns the content session sessionID kept under handle
	// (false: it kept none by that handle).
	Output(sessionID, handle string) (content string, ok bool, err error)
}

// ToolOutput reads a page of an output the calling session kept whole:
// the model got only its head and tail (tool.View).
type ToolOutput struct{ outputs OutputReader }

var _ beamclaw.Tool = (*ToolOutput)(nil)

// NewToolOutput returns the tool_output tool over the sessions' outputs.
func NewToolOutput(outputs OutputReader) *ToolOutput { return &ToolOutput{outputs: outputs} }

// Spec implements beamclaw.Tool.
func (t *ToolOutput) Spec() beamclaw.ToolSpec {
	return spec(tool.OutputTool, toolOutputDesc, toolOutputSchema, false, beamclaw.ReadOnly, beamclaw.RiskLow)
}

type toolOutputArgs struct {
	ID     string `json:"id"`
	Offset int    `json:"offset"`
	Limit  int    `json:"limit"`
}

// Execute implements beamclaw.Tool: a header line "bytes A–B of N" and
// the bytes A to B of the output as they are. A page, header included,
// holds within the call's page size, so the loop never cuts it again.
func (t *ToolOutput) Execute(_ context.Context, inv beamclaw.Invocation) (string, error) {
	var a toolOutputArgs
	if err := decodeArgs(tool.OutputTool, inv.Args, &a); err != nil {
		return "", err
	}
	out, ok, err := t.outputs.Output(inv.SessionID, a.ID)
	switch {
	case err != nil:
		return "", errors.New("tool_output: the kept output could not be read now; try again")
	case !ok:
		return "", fmt.Errorf("tool_output: no such output %q in this conversation (use the id a cut result names)", a.ID)
	case a.Offset < 0 || a.Limit < 0:
		return "", errors.New("tool_output: offset and limit are byte counts, 0 or more")
	case a.Offset >= len(out):
		return "", fmt.Errorf("tool_output: offset %d is past the end of %s, which has %d bytes", a.Offset, a.ID, len(out))
	}
	page := inv.PageBytes
	if page <= 0 {
		page = tool.MinPageBytes
	}
	room := max(page-len(fmt.Sprintf(pageMore, len(out), len(out), len(out), len(out))), 1) // the longest header
	limit := a.Limit
	if limit <= 0 || limit > room {
		limit = room
	}
	from, to := tool.Page(out, a.Offset, limit)
	return pageHeader(from, to, len(out)) + out[from:to], nil
}

// The line before a page: bytes from–to of n, and where the next page
// starts, or that there is none.
const (
	pageMore = "[bytes %d–%d of %d; the next page starts at offset %d]\n"
	pageEnd  = "[bytes %d–%d of %d: the end]\n"
)

// pageHeader is the line before the page from–to of an output of n bytes.
func pageHeader(from, to, n int) string {
	if to >= n {
		return fmt.Sprintf(pageEnd, from, to, n)
	}
	return fmt.Sprintf(pageMore, from, to, n, to)
}
