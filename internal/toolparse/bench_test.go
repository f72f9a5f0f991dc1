package toolparse

import (
	"strings"
	"testing"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
)

func BenchmarkParsePlain(b *testing.B) {
	msg := beamclaw.Message{Content: strings.Repeat("An ordinary answer with no tool calls in it. ", 90)}
	b.ReportAllocs()
	for b.Loop() {
		Parse(msg)
	}
}

func BenchmarkParseXML(b *testing.B) {
	msg := beamclaw.Message{Content: "Let me check.\n<tool_call>\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"a.txt\"}}\n</tool_call>\n" +
		"<tool_call><name>shell</name><args>{\"cmd\": \"ls -l\"}</args></tool_call>"}
	b.ReportAllocs()
	for b.Loop() {
		Parse(msg)
	}
}

func BenchmarkParseFenced(b *testing.B) {
	msg := beamclaw.Message{Content: "Running it.\n```json\n{\"tool\": \"shell\", \"args\": {\"cmd\": \"ls\"}}\n```\nThen more."}
	b.ReportAllocs()
	for b.Loop() {
		Parse(msg)
	}
}

// BenchmarkParseAdversarial is deeply nested and unclosed markup: the
// scan must stay close to linear.
func BenchmarkParseAdversarial(b *testing.B) {
	msg := beamclaw.Message{Content: strings.Repeat("<tool_call><invoke name=\"x\">", 5000) + "</tool_call>" +
		strings.Repeat("```json\n", 2000)}
	b.ReportAllocs()
	for b.Loop() {
		Parse(msg)
	}
}
