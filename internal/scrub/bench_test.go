package scrub

import (
	"encoding/json"
	"testing"
)

func BenchmarkStringClean4KB(b *testing.B) {
	text := cleanText(4096)
	b.ReportAllocs()
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		_ = String(text)
	}
}

func BenchmarkStringThreeSecrets4KB(b *testing.B) {
	clean := cleanText(4096)
	text := clean[:1000] + " password=hunter2 " + clean[1000:2000] + " " + fakeGitHub + " " +
		clean[2000:3000] + " Authorization: Bearer " + fakeJWT + " " + clean[3000:]
	b.ReportAllocs()
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		_ = String(text)
	}
}

func BenchmarkScrubberClean4KB(b *testing.B) {
	s := New("first-config-secret-value", "second-config-secret-value")
	text := cleanText(4096)
	b.ReportAllocs()
	for b.Loop() {
		_ = s.String(text)
	}
}

func BenchmarkJSONClean(b *testing.B) {
	raw := json.RawMessage(`{"path":"/tmp/report.txt","mode":"read","limit":4096,"tags":["a","b"],"note":"risk-free read"}`)
	b.ReportAllocs()
	for b.Loop() {
		_ = JSON(raw)
	}
}
