package openai

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"log/slog"
	"math"
	"net/http"
	"time"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/provider"
)

// embedBatch is the most texts sent in one /embeddings request.
const embedBatch = 128

// Embedder turns texts into vectors with POST {base_url}/embeddings. It is
// safe for concurrent use.
type Embedder struct {
	t          *transport
	model      string
	dimensions int
}

var _ beamclaw.Embedder = (*Embedder)(nil)

// NewEmbedder returns an Embedder for Options.Model (required). dimensions
// > 0 asks the provider for vectors of that size (text-embedding-3-*);
// 0 takes the model's own.
func NewEmbedder(o Options, dimensions int) (*Embedder, error) {
	if o.Model == "" {
		return nil, beamclaw.E("openai.NewEmbedder", beamclaw.KindInvalid, "no embedding model configured", nil)
	}
	t, err := newTransport(o)
	if err != nil {
		return nil, err
	}
	return &Embedder{t: t, model: o.Model, dimensions: dimensions}, nil
}

// Dimensions is the requested vector size (0: the model's default).
func (e *Embedder) Dimensions() int { return e.dimensions }

// Embed returns one vector per text, in order, batching large inputs.
// Errors carry the same Kinds as Client.Chat.
func (e *Embedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	ctx, cancel := provider.WithTimeout(ctx, e.t.timeout)
	defer cancel()
	out := make([][]float32, 0, len(texts))
	for start := 0; start < len(texts); start += embedBatch {
		batch := texts[start:min(start+embedBatch, len(texts))]
		vecs, err := e.embedBatch(ctx, batch)
		if err != nil {
			return nil, err
		}
		out = append(out, vecs...)
	}
	return out, nil
}

type embedRequest struct {
	Model          string   `json:"model"`
	Input          []string `json:"input"`
	Dimensions     int      `json:"dimensions,omitempty"`
	EncodingFormat string   `json:"encoding_format"`
}

type embedResponse struct {
	Data []struct {
		Index     int             `json:"index"`
		Embedding json.RawMessage `json:"embedding"`
	} `json:"data"`
	Usage usageJSON `json:"usage"`
}

func (e *Embedder) embedBatch(ctx context.Context, texts []string) ([][]float32, error) {
	const op = "openai.Embed"
	body, err := json.Marshal(embedRequest{Model: e.model, Input: texts, Dimensions: e.dimensions, EncodingFormat: "float"})
	if err != nil {
		return nil, beamclaw.E(op, beamclaw.KindInvalid, "the embedding request could not be encoded", err)
	}
	start := time.Now()
	var out [][]float32
	var status int
	err = e.t.retry(ctx, op, func(error) bool { return true }, func(int) error {
		hreq, err := e.t.request(ctx, "/embeddings", "application/json", bytes.NewReader(body))
		if err != nil {
			return beamclaw.E(op, beamclaw.KindInternal, "", err)
		}
		res, err := e.t.hc.Do(hreq)
		if err != nil {
			return e.t.transportError(op, ctx, err)
		}
		defer res.Body.Close()
		status = res.StatusCode
		if res.StatusCode != http.StatusOK {
			return e.t.statusError(op, res)
		}
		out, err = decodeEmbeddings(res, len(texts))
		if err != nil {
			return beamclaw.E(op, beamclaw.KindUnavailable, provider.KindMessage(beamclaw.KindUnavailable), fmt.Errorf("%s: %w", e.t.name, err))
		}
		return nil
	})
	e.t.log.LogAttrs(ctx, slog.LevelDebug, "embeddings call", slog.String("provider", e.t.name),
		slog.String("model", e.model), slog.Int("status", status), slog.Int("texts", len(texts)),
		slog.Duration("duration", time.Since(start)))
	return out, err
}

func decodeEmbeddings(res *http.Response, n int) ([][]float32, error) {
	var er embedResponse
	if err := json.NewDecoder(res.Body).Decode(&er); err != nil {
		return nil, fmt.Errorf("decode embeddings: %w", err)
	}
	if len(er.Data) != n {
		return nil, fmt.Errorf("embeddings: got %d vectors for %d texts", len(er.Data), n)
	}
	out := make([][]float32, n)
	for _, d := range er.Data {
		if d.Index < 0 || d.Index >= n || out[d.Index] != nil {
			return nil, fmt.Errorf("embeddings: bad index %d", d.Index)
		}
		v, err := decodeVector(d.Embedding)
		if err != nil {
			return nil, err
		}
		out[d.Index] = v
	}
	return out, nil
}

// decodeVector reads a float array, or OpenAI's base64 little-endian
// float32 encoding.
func decodeVector(raw json.RawMessage) ([]float32, error) {
	var v []float32
	if err := json.Unmarshal(raw, &v); err == nil {
		return v, nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, fmt.Errorf("embeddings: vector is neither floats nor base64")
	}
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil || len(b)%4 != 0 {
		return nil, fmt.Errorf("embeddings: bad base64 vector")
	}
	v = make([]float32, len(b)/4)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return v, nil
}
