package tui

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/beamclaw/beamclaw-go/pkg/protocol"
)

// TestElicitationAnsweredFieldByField: a tool's question is shown with its
// fields; typed values (and Enter for a default) answer it with one
// answer frame; /decline refuses the next one.
func TestElicitationAnsweredFieldByField(t *testing.T) {
	conn := newFakeConn("default")
	m := newTestModel(t, &dialer{}, conn)
	schema := json.RawMessage(`{"type":"object","properties":{
	  "city":{"type":"string","title":"City"},
	  "days":{"type":"integer","default":3},
	  "units":{"type":"string","enum":["metric","imperial"],"default":"metric"}},"required":["city"]}`)
	frame(m, protocol.ServerFrame{Type: protocol.FrameElicitation, RunID: "r1", Elicitation: &protocol.WSElicitation{
		ID: "el-1", Source: "mcp:weather", Message: "Where?", Schema: schema}})
	mustContain(t, m.screen(), "mcp:weather asks: Where?", "City (city) [required]", "city: type a value")
	press(m, enter)
	mustContain(t, m.screen(), "city needs a value.")
	typeText(m, "Oslo")
	press(m, enter)
	mustContain(t, m.screen(), "days [integer; default 3]")
	typeText(m, "many")
	press(m, enter)
	mustContain(t, m.screen(), `"many" is not a whole number`)
	typeText(m, "5")
	press(m, enter)
	press(m, enter) // units: the default
	f := conn.next(t)
	want := protocol.ClientFrame{Type: protocol.FrameAnswer, ElicitationID: "el-1", Action: "accept",
		Fields: map[string]any{"city": "Oslo", "days": int64(5)}}
	if d := cmp.Diff(want, f); d != "" {
		t.Errorf("answer frame (-want +got):\n%s", d)
	}
	mustContain(t, m.screen(), "Answered: city=Oslo, days=5 (mcp:weather)", "default · connected")

	frame(m, protocol.ServerFrame{Type: protocol.FrameElicitation, RunID: "r1", Elicitation: &protocol.WSElicitation{
		ID: "el-2", Source: "mcp:weather", Message: "Share your location?", Schema: json.RawMessage(`{"type":"object","properties":{}}`)}})
	typeText(m, "/decline")
	press(m, enter)
	if f := conn.next(t); f.Type != protocol.FrameAnswer || f.ElicitationID != "el-2" || f.Action != "decline" {
		t.Errorf("decline sent %+v", f)
	}
}
