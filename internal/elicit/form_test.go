package elicit

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The schema of the conformance suite's SEP-1034 scenario.
const sep1034 = `{"type":"object","properties":{
 "name":{"type":"string","description":"User name","default":"John Doe"},
 "age":{"type":"integer","description":"User age","default":30},
 "score":{"type":"number","description":"User score","default":95.5},
 "status":{"type":"string","description":"User status","enum":["active","inactive","pending"],"default":"active"},
 "verified":{"type":"boolean","description":"Verification status","default":true}},"required":[]}`

func TestDefaultsAndComplete(t *testing.T) {
	f, err := Parse(json.RawMessage(sep1034))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"name": "John Doe", "age": 30.0, "score": 95.5, "status": "active", "verified": true}
	if diff := cmp.Diff(want, f.Defaults()); diff != "" {
		t.Errorf("Defaults (-want +got):\n%s", diff)
	}
	got, err := f.Complete(map[string]any{"name": "Ada"})
	want["name"] = "Ada"
	if err != nil || !cmp.Equal(want, got) {
		t.Errorf("Complete = %v, %v", got, err)
	}
}

func TestParseTextAndValues(t *testing.T) {
	f, _ := Parse(json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer"},"ok":{"type":"boolean"},
	  "c":{"type":"string","oneOf":[{"const":"red","title":"Red"},{"const":"blue"}]}},"required":["n"]}`))
	if f.Fields[0].Name != "n" {
		t.Errorf("required field not first: %+v", f.Fields)
	}
	got, err := f.ParseText("n=3\nok=yes\nc=blue")
	if want := map[string]any{"n": int64(3), "ok": true, "c": "blue"}; err != nil || !cmp.Equal(want, got) {
		t.Errorf("ParseText = %v, %v", got, err)
	}
	for _, bad := range []string{"n=three", "c=green", "nope=1", "ok=maybe"} {
		if _, err := f.ParseText(bad); err == nil {
			t.Errorf("ParseText(%q) accepted it", bad)
		}
	}
	if _, err := f.Complete(map[string]any{}); err == nil {
		t.Error("Complete without the required field succeeded")
	}
	one, _ := Parse(json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}}}`))
	if got, err := one.ParseText("Paris"); err != nil || got["city"] != "Paris" {
		t.Errorf("one-field text = %v, %v", got, err)
	}
}
