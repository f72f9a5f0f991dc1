package fakellm

import (
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"hash/fnv"
	"math"
	"net/http"
	"strings"
	"unicode"
)

// DefaultDimensions is the embedding size when a request names none.
const DefaultDimensions = 256

// Vector is the deterministic embedding of text: a hashed bag of its
// lower-cased words in dim buckets, L2-normalised, so that texts sharing
// words have a high cosine similarity. An empty text maps to the first
// unit vector.
func Vector(text string, dim int) []float32 {
	if dim <= 0 {
		dim = DefaultDimensions
	}
	v := make([]float32, dim)
	words := strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
	for _, w := range words {
		h := fnv.New64a()
		_, _ = h.Write([]byte(w))
		v[h.Sum64()%uint64(dim)]++
	}
	var norm float64
	for _, x := range v {
		norm += float64(x) * float64(x)
	}
	if norm == 0 {
		v[0] = 1
		return v
	}
	scale := float32(1 / math.Sqrt(norm))
	for i := range v {
		v[i] *= scale
	}
	return v
}

func (s *Server) handleEmbeddings(w http.ResponseWriter, r *http.Request) {
	body, ok := readBody(w, r)
	if !ok {
		return
	}
	var wr wireRequest
	req := Request{Path: r.URL.Path, Header: r.Header.Clone(), Body: append(json.RawMessage(nil), body...)}
	err := json.Unmarshal(body, &wr)
	if err == nil {
		req.Model, req.Dimensions = wr.Model, wr.Dimensions
		req.Input, err = decodeInput(wr.Input)
	}
	reply, _ := s.next(req)
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	if !s.preamble(w, r, reply, true) {
		return
	}
	type item struct {
		Object    string `json:"object"`
		Index     int    `json:"index"`
		Embedding any    `json:"embedding"`
	}
	data := make([]item, len(req.Input))
	tokens := 0
	for i, text := range req.Input {
		vec := Vector(text, req.Dimensions)
		data[i] = item{Object: "embedding", Index: i, Embedding: vec}
		if wr.EncodingFormat == "base64" {
			data[i].Embedding = encodeBase64(vec)
		}
		tokens += len(text)/4 + 1
	}
	model := req.Model
	if model == "" {
		model = DefaultEmbeddingModel
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"object": "list", "data": data, "model": model,
		"usage": map[string]int{"prompt_tokens": tokens, "total_tokens": tokens},
	})
}

// encodeBase64 is OpenAI's base64 encoding_format: little-endian float32s.
func encodeBase64(v []float32) string {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return base64.StdEncoding.EncodeToString(b)
}
