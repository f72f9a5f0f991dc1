package scrub

import (
	"strings"
	"sync"
)

// Stream scrubs text that arrives in pieces (a model's streamed answer)
// and forwards it at once, holding back only the tail that could still
// become part of a secret: a word that could grow into a key ("sk-pr"),
// an assignment whose value has not ended ("password: hun"), "Bearer"
// before its credential, a URL that may carry a password, a prefix of a
// registered secret value. Whatever it forwards is the scrubbed text, and
// the pieces together equal what String would make of the whole.
//
// Once text holds tool-call markup (a marker such as "<tool_call"), the
// rest is not forwarded: it is tool syntax, not an answer. Write and Flush
// are safe for concurrent use; emit is called under the stream's lock.
type Stream struct {
	mu      sync.Mutex
	s       *Scrubber
	emit    func(string)
	pending string
	stopped bool
	// ctx is the tail of what was forwarded, unscrubbed, from a word
	// start: a rule may look at the character before a match ("Csk-..."
	// is a word, not a key), so each piece is scrubbed in its context.
	ctx, ctxOut string
}

// contextBytes bounds the forwarded text kept as context.
const contextBytes = 128

// markers start tool-call markup or a PEM block: from one on, nothing
// more is forwarded.
var markers = []string{"<tool_call", "<toolcall", "<invoke", "```json", "-----BEGIN"}

// holdPrefixes are the literal beginnings of the credential shapes
// (Shapes): a word that is, or could grow into, one of them is held back
// until it ends.
var holdPrefixes = sync.OnceValue(func() []string {
	var ps []string
	for _, sh := range shapes() {
		ps = append(ps, sh.prefixes...)
	}
	return ps
})

// NewStream returns a Stream that forwards scrubbed text to emit.
func (s *Scrubber) NewStream(emit func(string)) *Stream {
	return &Stream{s: s, emit: emit}
}

// Write takes the next piece of text.
func (st *Stream) Write(piece string) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.stopped {
		return
	}
	st.pending += piece
	if i := firstMarker(st.pending); i >= 0 {
		st.stopped = true
		st.forward(st.pending[:i])
		st.pending = ""
		return
	}
	// Look at what was forwarded too: "Bearer" or "password:" may have
	// gone out before the credential that follows them arrives.
	full := st.ctx + st.pending
	cut := st.holdFrom(full)
	// What goes out must scrub as it does inside the whole text so far
	// (not so when a cut falls after the opening quote of a value):
	// step back a word at a time until it does.
	whole := st.s.String(full)
	for cut > len(st.ctx) && !strings.HasPrefix(whole, st.s.String(full[:cut])) {
		cut = lastWordStart(full[:cut-1])
	}
	cut -= len(st.ctx)
	if cut <= 0 {
		return
	}
	st.forward(st.pending[:cut])
	st.pending = st.pending[cut:]
}

// Flush forwards what is held back: the text is complete.
func (st *Stream) Flush() {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.stopped {
		return
	}
	st.forward(st.pending)
	st.pending = ""
}

func (st *Stream) forward(text string) {
	if text == "" {
		return
	}
	full := st.ctx + text
	out := st.s.String(full)
	piece, ok := strings.CutPrefix(out, st.ctxOut)
	if !ok {
		piece = st.s.String(text) // the context scrubs differently: this piece alone
	}
	if piece != "" {
		st.emit(piece)
	}
	st.ctx, st.ctxOut = full, out
	if len(st.ctx) > contextBytes {
		cut := lastWordStart(st.ctx[:len(st.ctx)-contextBytes/2])
		st.ctx = st.ctx[cut:]
		st.ctxOut = st.s.String(st.ctx)
	}
}

// holdFrom returns the index from which text must be held back: no
// secret that more text could complete starts before it.
func (st *Stream) holdFrom(text string) int {
	cut := len(text)
	if m := markerPrefix(text); m >= 0 {
		cut = m
	}
	w := lastWordStart(text)
	if w < len(text) && st.mayBecomeSecret(text[w:]) {
		cut = min(cut, w)
	}
	if k := openAssignment(text); k >= 0 {
		cut = min(cut, k)
	}
	if b := openBearer(text, w); b >= 0 {
		cut = min(cut, b)
	}
	if l := st.literalPrefix(text); l >= 0 {
		cut = min(cut, l)
	}
	return cut
}

// lastWordStart is the index after the last white space of text (len of
// text when it ends with white space).
func lastWordStart(text string) int {
	i := len(text)
	for i > 0 && !isSpace(text[i-1]) {
		i--
	}
	return i
}

// mayBecomeSecret reports whether a word still being written is, or
// could grow into, something a rule redacts.
func (st *Stream) mayBecomeSecret(w string) bool {
	if strings.Contains(w, "://") || strings.Contains(w, ":/") || strings.HasSuffix(w, ":") {
		return true // a URL that may carry user:password@, or a key: about to get its value
	}
	for p := 0; p < len(w); p++ {
		if p > 0 && isWordByte(w[p-1]) {
			continue // keys start a word (rules: keepStart); a keyword's value is held by openAssignment
		}
		rest := w[p:]
		if allDigits(rest) || digitsColon(rest) || startsOrGrows(rest, holdPrefixes(), false) {
			return true
		}
	}
	return false
}

// startsOrGrows reports whether s starts with one of lits, or is the
// beginning of one of them.
func startsOrGrows(s string, lits []string, fold bool) bool {
	for _, l := range lits {
		n := min(len(s), len(l))
		if fold && strings.EqualFold(s[:n], l[:n]) || !fold && s[:n] == l[:n] {
			return true
		}
	}
	return false
}

// digitsColon reports whether s starts with digits and a colon: the shape
// of a Telegram bot token (123456789:AAH...).
func digitsColon(s string) bool {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return i > 0 && i < len(s) && s[i] == ':'
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// openAssignment returns the start of the key of the earliest keyword
// assignment ("token: ", "api_key=") whose value may not have ended yet,
// or -1.
func openAssignment(text string) int {
	for sep := max(0, len(text)-512); sep < len(text); sep++ {
		if c := text[sep]; c != ':' && c != '=' || !keyBefore(text, sep) {
			continue
		}
		v := sep + 1
		if v < len(text) && text[v] == '=' {
			v++
		}
		v = skipSpace(text, v)
		if v >= len(text) {
			return keyStart(text, sep)
		}
		if q := text[v]; isQuote(q) && closingQuote(text, v+1, q) < 0 {
			return keyStart(text, sep)
		}
		_, end := valueSpan(text, v)
		word := unquotedEnd(text, v)
		switch {
		case end >= len(text), word >= len(text)-1:
			return keyStart(text, sep) // the value may go on (after a quote, a word character continues it)
		case isScheme(text[v:word]) && end <= word:
			return keyStart(text, sep) // "Bearer" with its credential still to come
		}
	}
	return -1
}

// keyStart walks back from a separator over space, a quote and the key.
func keyStart(text string, sep int) int {
	k := sep
	for k > 0 && isSpace(text[k-1]) {
		k--
	}
	if k > 0 && (text[k-1] == '"' || text[k-1] == '\'') {
		k--
	}
	for k > 0 && (isWordByte(text[k-1]) || text[k-1] == '-') {
		k--
	}
	return k
}

// openBearer returns the start of "Bearer" when its credential is the
// word still being written (starting at w), or not written yet.
func openBearer(text string, w int) int {
	end := w
	for end > 0 && isSpace(text[end-1]) {
		end--
	}
	start := end
	for start > 0 && isWordByte(text[start-1]) {
		start--
	}
	if end-start == 6 && strings.EqualFold(text[start:end], "bearer") {
		return start
	}
	return -1
}

// literalPrefix returns where a suffix of text begins that is the
// beginning of a registered secret value, or -1.
func (st *Stream) literalPrefix(text string) int {
	p := st.s.lits.Load()
	if p == nil {
		return -1
	}
	best := -1
	for _, l := range *p {
		for n := min(len(l)-1, len(text)); n > 0; n-- {
			if strings.HasSuffix(text, l[:n]) {
				if i := len(text) - n; best < 0 || i < best {
					best = i
				}
				break
			}
		}
	}
	return best
}

// firstMarker returns where the first marker starts in text, or -1.
func firstMarker(text string) int {
	best := -1
	for _, m := range markers {
		if i := strings.Index(text, m); i >= 0 && (best < 0 || i < best) {
			best = i
		}
	}
	return best
}

// markerPrefix returns where a suffix of text that could grow into a
// marker begins, or -1.
func markerPrefix(text string) int {
	best := -1
	for _, m := range markers {
		for n := min(len(m)-1, len(text)); n > 0; n-- {
			if strings.HasSuffix(text, m[:n]) {
				if i := len(text) - n; best < 0 || i < best {
					best = i
				}
				break
			}
		}
	}
	return best
}

func isQuote(c byte) bool { return c == '"' || c == '\'' || c == '`' }
