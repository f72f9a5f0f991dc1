package openai

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
)

// checkBody fails t unless body is what encoding req afresh gives.
func checkBody(t testing.TB, body []byte, req beamclaw.ChatRequest, step string) {
	t.Helper()
	want, err := json.Marshal(encodeChat(req, "m", false))
	if err != nil {
		t.Fatal(err)
	}
	var g, w any
	if err := json.Unmarshal(body, &g); err != nil {
		t.Fatalf("%s: invalid body: %v\n%s", step, err, body)
	}
	if err := json.Unmarshal(want, &w); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(g, w) {
		t.Fatalf("%s: body\n%s\nwant\n%s", step, body, want)
	}
}

// TestConversationCacheSendsWhatTheConversationHolds: a conversation's
// earlier messages come from the cache only while they are the same; a
// message changed in place (its tool arguments, its attachment), a
// rewritten or shortened history are encoded as they are now.
func TestConversationCacheSendsWhatTheConversationHolds(t *testing.T) {
	c := &Client{t: &transport{name: "t"}}
	full := goldenConversation()
	req := full
	req.System, req.Conversation = "the agent's prompt", "session-1"
	encode := func(step string) {
		t.Helper()
		body, err := c.encodeBody(nil, req, "m")
		if err != nil {
			t.Fatal(err)
		}
		checkBody(t, body, req, step)
	}
	hist := slices.Clone(full.Messages)
	req.Messages = hist[:3]
	encode("first call")
	req.Messages = hist[:5]
	encode("grown")
	if p := c.t.enc.convs.get("session-1"); p == nil || len(p.msgs) != 5 {
		t.Fatalf("the conversation was not kept: %+v", p)
	}
	encode("unchanged")

	hist[2].ToolCalls[0].Args[2] = 'D' // {"Detail":...}, changed where it lies
	encode("tool arguments changed in place")
	hist[1].Attachments[0].Data[0] = 'X'
	encode("attachment changed in place")
	hist[3].Content = "A dog on a mat."
	encode("a result rewritten")

	req.Messages = hist[:2]
	encode("shortened")
	req.Messages = append([]beamclaw.Message{{Role: beamclaw.RoleUser, Content: "summary of what came before"}}, hist[4:]...)
	encode("compacted")
	req.Messages = append(req.Messages, beamclaw.Message{Role: beamclaw.RoleUser, Content: "and now?"})
	encode("grown after compaction")

	other := req
	other.Conversation, other.Messages = "session-2", hist[:1]
	body, err := c.encodeBody(nil, other, "m")
	if err != nil {
		t.Fatal(err)
	}
	checkBody(t, body, other, "another conversation")
	encode("the first conversation again")
}

// Calls of one conversation racing with diverging histories each send
// their own messages (run with -race: entries share arrays).
func TestConversationCacheUnderConcurrentCalls(t *testing.T) {
	c := &Client{t: &transport{name: "t"}}
	base := make([]beamclaw.Message, 0, 64)
	for i := range 8 {
		base = append(base, beamclaw.Message{Role: beamclaw.RoleUser, Content: fmt.Sprintf("shared %d", i)})
	}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			hist := slices.Clip(base)
			for i := range 50 {
				hist = append(hist, beamclaw.Message{Role: beamclaw.RoleAssistant, Content: fmt.Sprintf("worker %d says %d", g, i)})
				req := beamclaw.ChatRequest{Conversation: "shared", Messages: hist}
				body, err := c.encodeBody(nil, req, "m")
				if err != nil {
					t.Error(err)
					return
				}
				checkBody(t, body, req, fmt.Sprintf("worker %d call %d", g, i))
			}
		}()
	}
	wg.Wait()
}

// Calls of one conversation racing with equal histories (a retry beside
// the call it repeats) extend the same entry: only one may grow it where
// it lies, the others copy (run with -race).
func TestConversationCacheUnderConcurrentEqualCalls(t *testing.T) {
	c := &Client{t: &transport{name: "t"}}
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var hist []beamclaw.Message
			for i := range 100 {
				hist = append(hist, beamclaw.Message{Role: beamclaw.RoleUser, Content: fmt.Sprint("message ", i)})
				req := beamclaw.ChatRequest{Conversation: "same", Messages: hist}
				body, err := c.encodeBody(nil, req, "m")
				if err != nil {
					t.Error(err)
					return
				}
				checkBody(t, body, req, fmt.Sprint("call ", i))
			}
		}()
	}
	wg.Wait()
}

// An entry is never changed once stored: a call that started from an
// older entry does not write into the arrays a newer one shares.
func TestConversationEntriesNeverChange(t *testing.T) {
	var cc convCache
	msg := func(s string) beamclaw.Message { return beamclaw.Message{Role: beamclaw.RoleUser, Content: s} }
	cc.extend("c", nil, []beamclaw.Message{msg("1"), msg("2"), msg("3")}, []byte(`1,2,3`))
	e1 := cc.get("c")
	if cap(e1.msgs) == len(e1.msgs) || cap(e1.enc) == len(e1.enc) {
		t.Fatalf("the first entry has no room to grow in place (%d/%d messages, %d/%d bytes)",
			len(e1.msgs), cap(e1.msgs), len(e1.enc), cap(e1.enc))
	}
	cc.extend("c", e1, []beamclaw.Message{msg("4")}, []byte(`,4`))
	e2 := cc.get("c")
	cc.extend("c", e1, []beamclaw.Message{msg("other")}, []byte(`,other`)) // started from e1 too
	if e2.msgs[3].Content != "4" || string(e2.enc) != "1,2,3,4" {
		t.Errorf("a stored entry changed: %q, %s", e2.msgs[3].Content, e2.enc)
	}
	if e3 := cc.get("c"); e3.msgs[3].Content != "other" || string(e3.enc) != "1,2,3,other" {
		t.Errorf("the latest call's entry: %q, %s", e3.msgs[3].Content, e3.enc)
	}
}

// The cache stays within its bound however many conversations pass.
func TestConversationCacheIsBounded(t *testing.T) {
	var ec encCaches
	text := strings.Repeat("y", 32<<10)
	for i := range 400 {
		msgs := []beamclaw.Message{{Role: beamclaw.RoleUser, Content: fmt.Sprintf("%d %s", i, text)}}
		if _, err := ec.appendMessages(nil, fmt.Sprint("conv-", i), msgs); err != nil {
			t.Fatal(err)
		}
		if ec.convs.entries.size > maxConvCache {
			t.Fatalf("after %d conversations the cache holds %d bytes", i+1, ec.convs.entries.size)
		}
	}
	// A conversation past the bound of one entry keeps what it had and
	// leaves the others alone.
	before := len(ec.convs.entries.m)
	var huge []beamclaw.Message
	for range 2 * maxConvEntry / len(text) {
		huge = append(huge, beamclaw.Message{Role: beamclaw.RoleUser, Content: text})
		if _, err := ec.appendMessages(nil, "huge", huge); err != nil {
			t.Fatal(err)
		}
	}
	if p := ec.convs.get("huge"); p == nil || p.cost > maxConvEntry {
		t.Errorf("the huge conversation's entry: %+v", p)
	}
	if n := len(ec.convs.entries.m); n < before {
		t.Errorf("one growing conversation emptied the cache: %d entries, %d before", n, before)
	}
}

// sameMessage must compare every member of a message that reaches the
// wire: a member added to beamclaw.Message (or ToolCall, Attachment)
// fails here until sameMessage and cloneMessage consider it.
func TestSameMessageKnowsEveryMember(t *testing.T) {
	for typ, want := range map[reflect.Type][]string{
		reflect.TypeFor[beamclaw.Message]():    {"ID", "Role", "Content", "ToolCalls", "ToolCallID", "Name", "Attachments", "Time"},
		reflect.TypeFor[beamclaw.ToolCall]():   {"ID", "Name", "Args", "Source"},
		reflect.TypeFor[beamclaw.Attachment](): {"MIME", "Data", "Name"},
	} {
		var got []string
		for f := range typ.Fields() {
			got = append(got, f.Name)
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s has members %v; sameMessage and cloneMessage know %v", typ, got, want)
		}
	}
}

// FuzzConversationCache drives one conversation (and a second under the
// same client) through appends, in-place changes, truncations and
// rewrites; every body must be what a fresh encoding of the request is.
func FuzzConversationCache(f *testing.F) {
	f.Add([]byte("aaaaab"))
	f.Add([]byte("a\x01a\x02m\x00a\x03t\x02a"))
	f.Add([]byte("aaa\x04r\x01s a\x05c\x00aa"))
	f.Fuzz(func(t *testing.T, ops []byte) {
		if len(ops) > 64 {
			return
		}
		c := &Client{t: &transport{name: "fuzz"}}
		convs := [2][]beamclaw.Message{}
		cur := 0
		for i := 0; i < len(ops); i++ {
			op, arg := ops[i], byte(0)
			if i+1 < len(ops) {
				arg = ops[i+1]
			}
			h := convs[cur]
			switch op % 6 {
			case 0: // append a message of some kind
				convs[cur] = append(h, fuzzMessage(arg, i))
			case 1: // change one in place
				if len(h) > 0 {
					mutate(&h[int(arg)%len(h)], arg)
				}
			case 2: // shorten
				if len(h) > 0 {
					convs[cur] = h[:int(arg)%len(h)]
				}
			case 3: // rewrite the front (compaction): a new array
				if len(h) > 1 {
					convs[cur] = append([]beamclaw.Message{{Role: beamclaw.RoleUser, Content: "summary"}}, h[1+int(arg)%(len(h)-1):]...)
				}
			case 4: // switch conversation
				cur = 1 - cur
			case 5: // a fresh copy of the same messages
				convs[cur] = slices.Clone(h)
			}
			if len(convs[cur]) == 0 {
				continue // never sent: a model call has messages
			}
			req := beamclaw.ChatRequest{Conversation: fmt.Sprint("c", cur), Messages: convs[cur]}
			body, err := c.encodeBody(nil, req, "m")
			if err != nil {
				t.Fatal(err)
			}
			checkBody(t, body, req, fmt.Sprintf("op %d (%d)", i, op%6))
		}
	})
}

func fuzzMessage(k byte, i int) beamclaw.Message {
	text := fmt.Sprintf("message %d \"%c\"", i, 'a'+rune(k%26))
	switch k % 4 {
	case 0:
		return beamclaw.Message{Role: beamclaw.RoleUser, Content: text}
	case 1:
		return beamclaw.Message{Role: beamclaw.RoleAssistant, ToolCalls: []beamclaw.ToolCall{
			{ID: fmt.Sprint("call_", i), Name: "read_file", Args: json.RawMessage(`{"path":"a.txt"}`)}}}
	case 2:
		return beamclaw.Message{Role: beamclaw.RoleTool, ToolCallID: fmt.Sprint("call_", i), Name: "read_file", Content: text}
	default:
		return beamclaw.Message{Role: beamclaw.RoleUser, Content: text,
			Attachments: []beamclaw.Attachment{{MIME: "image/png", Data: []byte("png " + text), Name: "p.png"}}}
	}
}

// mutate changes m where it lies: its text, its tool arguments' bytes or
// its attachment's bytes.
func mutate(m *beamclaw.Message, k byte) {
	switch {
	case len(m.ToolCalls) > 0 && k%2 == 0:
		m.ToolCalls[0].Args[2] = 'a' + k%26
	case len(m.Attachments) > 0 && k%2 == 0:
		m.Attachments[0].Data[0] = 'a' + k%26
	default:
		m.Content += string(rune('a' + k%26))
	}
}
