package builtin_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/tool"
	"github.com/beamclaw/beamclaw-go/internal/tool/builtin"
)

// keptOutputs are outputs by session and handle.
type keptOutputs map[string]map[string]string

func (k keptOutputs) Output(sessionID, handle string) (string, bool, error) {
	if sessionID == "broken" {
		return "", false, errors.New("disk on fire")
	}
	out, ok := k[sessionID][handle]
	return out, ok, nil
}

// readOutput calls tool_output for session with args and a page size.
func readOutput(t *testing.T, k keptOutputs, session string, page int, args string) beamclaw.ToolResult {
	t.Helper()
	return tool.New(tool.Options{}).Run(t.Context(), builtin.NewToolOutput(k), beamclaw.Invocation{
		Args: json.RawMessage(args), CallID: "c1", SessionID: session, PageBytes: page})
}

var pageHeaderRe = regexp.MustCompile(`^\[bytes (\d+)–(\d+) of (\d+)(?:; the next page starts at offset (\d+)|: the end)\]\n`)

// Reading page after page from where each says the next starts gives the
// output back exactly, each page within the page size, header included.
func TestToolOutputPagesExactly(t *testing.T) {
	var b strings.Builder
	for i := range 300 {
		fmt.Fprintf(&b, "%03d é€😀\n", i)
	}
	out := b.String()
	k := keptOutputs{"s1": {"out-1": out}}
	var got strings.Builder
	for offset, pages := 0, 0; ; pages++ {
		res := mustOK(t, readOutput(t, k, "s1", 1000, fmt.Sprintf(`{"id":"out-1","offset":%d}`, offset)))
		m := pageHeaderRe.FindStringSubmatch(res)
		if m == nil || len(res) > 1000 || pages > 10 {
			t.Fatalf("page at %d: %d bytes, header %q", offset, len(res), res[:min(len(res), 80)])
		}
		from, _ := strconv.Atoi(m[1])
		to, _ := strconv.Atoi(m[2])
		if from != offset || m[3] != strconv.Itoa(len(out)) || res[len(m[0]):] != out[from:to] {
			t.Fatalf("page at %d is bytes %d–%d, not the output's", offset, from, to)
		}
		got.WriteString(res[len(m[0]):])
		if m[4] == "" {
			break
		}
		offset, _ = strconv.Atoi(m[4])
	}
	if got.String() != out {
		t.Errorf("the pages put together are not the output")
	}
}

func TestToolOutputArguments(t *testing.T) {
	out := "aé" + strings.Repeat("x", 100)
	k := keptOutputs{"s1": {"out-1": out}, "s2": {"out-2": "theirs"}}
	ok := []struct{ name, args, want string }{
		{"a limit", `{"id":"out-1","offset":10,"limit":5}`, "[bytes 10–15 of 103; the next page starts at offset 15]\n" + out[10:15]},
		{"an offset inside a rune", `{"id":"out-1","offset":2,"limit":3}`, "[bytes 1–4 of 103; the next page starts at offset 4]\n" + out[1:4]},
		{"to the end", `{"id":"out-1","offset":100}`, "[bytes 100–103 of 103: the end]\nxxx"},
		{"a limit past the page", `{"id":"out-1","limit":100000}`, "[bytes 0–39 of 103; the next page starts at offset 39]\n" + out[:39]}, // 95 bytes: 100 less the longest header
	}
	for _, tc := range ok {
		if got := mustOK(t, readOutput(t, k, "s1", 100, tc.args)); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
	bad := []struct{ name, session, args, want string }{
		{"another session's", "s1", `{"id":"out-2"}`, `tool_output: no such output "out-2" in this conversation`},
		{"past the end", "s1", `{"id":"out-1","offset":103}`, "tool_output: offset 103 is past the end of out-1, which has 103 bytes"},
		{"negative", "s1", `{"id":"out-1","offset":-1}`, "tool_output: offset and limit are byte counts, 0 or more"},
		{"no id", "s1", `{"offset":1}`, `invalid arguments for tool tool_output: argument "id": required`},
		{"an offset not a number", "s1", `{"id":"out-1","offset":"2"}`, `invalid arguments for tool tool_output: argument "offset": must be an integer`},
		{"a store that fails", "broken", `{"id":"out-1"}`, "tool_output: the kept output could not be read now; try again"},
	}
	for _, tc := range bad {
		if got := mustErr(t, readOutput(t, k, tc.session, 100, tc.args)); !strings.HasPrefix(got, tc.want) {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}

// The definition is offered on every model call: it stays short.
func TestToolOutputIsShort(t *testing.T) {
	s := builtin.NewToolOutput(keptOutputs{}).Spec()
	def, err := json.Marshal(map[string]any{"name": s.Def.Name, "description": s.Def.Description, "parameters": s.Def.Parameters})
	if err != nil || len(def) > 300 {
		t.Errorf("tool_output's definition is %d bytes (%v): %s", len(def), err, def)
	}
	if s.RequiresApproval || s.MinAutonomy != beamclaw.ReadOnly || s.Risk != beamclaw.RiskLow {
		t.Errorf("tool_output's policy: %+v", s)
	}
}
