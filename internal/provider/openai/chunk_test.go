package openai

import (
	"encoding/json"
	"reflect"
	"testing"
)

// chunkSeeds are chunks as providers send them, and the edges of the
// scanner (escapes, surrogates, nulls, duplicates, what must fall back).
var chunkSeeds = []string{
	`{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1732500000,"model":"gpt-4o-mini","system_fingerprint":"fp_1","choices":[{"index":0,"delta":{"role":"assistant","content":"","refusal":null},"logprobs":null,"finish_reason":null}],"usage":null}`,
	`{"id":"c","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{"content":"Hello \"world\"\n\u00e9\ud83d\ude00 \ud800 x \u2028"},"finish_reason":null}]}`,
	`{"id":"c","choices":[{"index":0,"delta":{},"finish_reason":"stop"}],"usage":{"prompt_tokens":11,"completion_tokens":4,"total_tokens":15,"prompt_tokens_details":{"cached_tokens":0}}}`,
	`{"id":"c","choices":[],"usage":{"prompt_tokens":1,"completion_tokens":2,"total_tokens":3}}`,
	`{"choices":[{"index":0,"delta":{"reasoning_content":"think","content":null}}]}`,
	`{"choices":[{"index":0,"delta":{"reasoning":"hmm"}}]}`,
	`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"f","arguments":"{\"a\":1}"}}]}}]}`,
	`{"choices":[{"index":0,"message":{"role":"assistant","content":"whole"},"finish_reason":"stop"}]}`,
	`{"error":{"message":"overloaded","code":529}}`,
	`{"error":null,"choices":null,"usage":null,"id":null}`,
	`{"choices":[{"index":1,"delta":{"content":"second"}},{"index":0,"delta":{"content":"first"}}]}`,
	`{"choices":[{"index":0,"delta":{"content":"a"}}],"choices":[{"delta":{"content":"b"}}]}`,
	`{"usage":{"prompt_tokens":1},"usage":{"total_tokens":2}}`,
	`{"Choices":[{"index":0,"delta":{"content":"case"}}]}`,
	`{"choices":[{"index":1.0}]}`,
	`{"choices":[{"index":99999999999999999999}]}`,
	`{"id":"bad \x01 control"}`,
	"{\"id\":\"bad utf8 \xff\"}",
	`{"id":"c","extra":{"deep":[1,-2.5e3,true,false,null,{"a":"b"}]}}  `,
	`{"id":"c"} x`,
	`{"id":"c",}`,
	` { "id" : "spaced" , "choices" : [ { "index" : 0 , "delta" : { "content" : "x" } } ] } `,
	`null`,
	`[]`,
	`{"choices":[null,{"index":0,"delta":null,"message":null}]}`,
	`{"id":"\u00"}`,
	`{"id":"\ud83d\u00e9"}`,
	`{"id":"\ud83d\"}`,
	`{"usage":{"prompt_tokens":900,"completion_tokens":12,"total_tokens":912,"prompt_tokens_details":{"cached_tokens":768,"audio_tokens":0}}}`,
	`{"usage":{"prompt_tokens_details":null,"prompt_tokens_details":{"cached_tokens":1},"prompt_tokens_details":{}}}`,
}

// The scanner decodes exactly what encoding/json decodes, whenever it
// does not hand the chunk to it (the seeds are in testdata/fuzz too).
func FuzzDecodeChunk(f *testing.F) {
	for _, s := range chunkSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var fast chunkJSON
		scanned := (&chunkScanner{data: data}).chunk(&fast)
		var want chunkJSON
		werr := json.Unmarshal(data, &want)
		// As readStream calls it: into a reused, zeroed choices array (the
		// scanner may have written into it before falling back).
		reused := chunkJSON{Choices: make([]choiceJSON, 0, 2)}
		wantReused := chunkJSON{Choices: make([]choiceJSON, 0, 2)}
		rerr := decodeChunk(data, &reused)
		wrerr := json.Unmarshal(data, &wantReused)
		if (rerr == nil) != (wrerr == nil) || !reflect.DeepEqual(reused, wantReused) {
			t.Fatalf("reused array: %q decoded as %#v (%v), want %#v (%v)", data, reused, rerr, wantReused, wrerr)
		}
		if !scanned {
			var got chunkJSON
			if gerr := decodeChunk(data, &got); (gerr == nil) != (werr == nil) || !reflect.DeepEqual(got, want) {
				t.Fatalf("fallback differs for %q: %+v (%v), want %+v (%v)", data, got, gerr, want, werr)
			}
			return
		}
		if werr != nil {
			t.Fatalf("scanned %q, which encoding/json refuses: %v", data, werr)
		}
		if !reflect.DeepEqual(fast, want) {
			t.Fatalf("scanned %q as\n%#v\nencoding/json:\n%#v", data, fast, want)
		}
	})
}

// The common chunks take the scanner, not the fallback.
func TestDecodeChunkScansTheCommonShapes(t *testing.T) {
	for _, s := range chunkSeeds[:6] {
		var ch chunkJSON
		if !(&chunkScanner{data: []byte(s)}).chunk(&ch) {
			t.Errorf("fell back for %s", s)
		}
	}
	for _, s := range []string{chunkSeeds[6], chunkSeeds[7], chunkSeeds[8], chunkSeeds[13]} {
		var ch chunkJSON
		if (&chunkScanner{data: []byte(s)}).chunk(&ch) {
			t.Errorf("scanned %s, which needs encoding/json", s)
		}
	}
}
