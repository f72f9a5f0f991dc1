package openai

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"sync"
)

// maxEventSize bounds one server-sent event (a huge tool-call argument
// may arrive in one chunk, but a stream may not grow without bound).
const maxEventSize = 8 << 20

// sseReader splits a text/event-stream into the data of its events:
// "data:" lines (one optional space after the colon) joined with "\n",
// events ended by a blank line, comment lines (":") and other fields
// ignored, CRLF or LF line ends.
type sseReader struct {
	r    *bufio.Reader
	data []byte
	line []byte
}

// sseBufSize is the read buffer of a stream.
const sseBufSize = 16 << 10

func newSSEReader(r io.Reader) *sseReader {
	return &sseReader{r: bufio.NewReaderSize(r, sseBufSize)}
}

// readerPool keeps the read buffers of finished streams for the next model
// call (a 16 KiB allocation per call otherwise).
type readerPool struct{ p sync.Pool }

// get returns an sseReader over r with a pooled buffer; put it back.
func (rp *readerPool) get(r io.Reader) *sseReader {
	br, _ := rp.p.Get().(*bufio.Reader)
	if br == nil {
		return newSSEReader(r)
	}
	br.Reset(r)
	return &sseReader{r: br}
}

// put returns s's buffer to the pool; s must not be used after.
func (rp *readerPool) put(s *sseReader) {
	s.r.Reset(nil)
	rp.p.Put(s.r)
	s.r = nil
}

// Next returns the data of the next event. The slice is valid until the
// next call. At the end of the stream it returns io.EOF; a last event
// without its blank line is still returned first.
func (s *sseReader) Next() ([]byte, error) {
	s.data = s.data[:0]
	hasData := false
	for {
		line, err := s.readLine()
		if err != nil {
			if errors.Is(err, io.EOF) && hasData {
				return s.data, nil
			}
			return nil, err
		}
		if len(line) == 0 {
			if hasData {
				return s.data, nil
			}
			continue
		}
		field, value, found := bytes.Cut(line, []byte{':'})
		if len(field) == 0 || string(field) != "data" {
			continue // comment (":...") or a field we do not use
		}
		if found && len(value) > 0 && value[0] == ' ' {
			value = value[1:]
		}
		if hasData {
			s.data = append(s.data, '\n')
		}
		if len(s.data)+len(value) > maxEventSize {
			return nil, fmt.Errorf("server-sent event over %d bytes", maxEventSize)
		}
		s.data = append(s.data, value...)
		hasData = true
	}
}

// readLine returns the next line without its line end. At the end of the
// stream a last unterminated line is returned before io.EOF.
func (s *sseReader) readLine() ([]byte, error) {
	s.line = s.line[:0]
	for {
		chunk, err := s.r.ReadSlice('\n')
		s.line = append(s.line, chunk...)
		if len(s.line) > maxEventSize {
			return nil, fmt.Errorf("server-sent event line over %d bytes", maxEventSize)
		}
		switch {
		case err == nil:
			return trimEOL(s.line), nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF) && len(s.line) > 0:
			return trimEOL(s.line), nil
		default:
			return nil, err
		}
	}
}

func trimEOL(b []byte) []byte {
	b = bytes.TrimSuffix(b, []byte{'\n'})
	return bytes.TrimSuffix(b, []byte{'\r'})
}
