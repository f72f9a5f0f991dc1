package memory

import (
	"context"
	"hash/fnv"
	"sync"
	"testing"

	"github.com/beamclaw/beamclaw-go/test/leak"

	"github.com/beamclaw/beamclaw-go/internal/clock"
	"github.com/beamclaw/beamclaw-go/internal/memory/search"
)

func TestMain(m *testing.M) { leak.VerifyTestMain(m) }

// testDims is the size of hashEmbedder's vectors.
const testDims = 256

// hashEmbedder is a deterministic stand-in for an embedding model: each
// word and each character trigram of a word is hashed into one of 256
// dimensions (words weigh more), and the vector is normalised. Texts that
// share words or word fragments ("deploy", "deployment") are similar.
type hashEmbedder struct {
	mu    sync.Mutex
	calls int
	texts int
	err   error
}

func (e *hashEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	e.mu.Lock()
	e.calls++
	e.texts += len(texts)
	err := e.err
	e.mu.Unlock()
	if err != nil {
		return nil, err
	}
	out := make([][]float32, len(texts))
	for i, t := range texts {
		out[i] = hashVector(t)
	}
	return out, nil
}

func (e *hashEmbedder) counts() (calls, texts int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.calls, e.texts
}

func (e *hashEmbedder) fail(err error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.err = err
}

func hashVector(text string) []float32 {
	v := make([]float32, testDims)
	bump := func(s string, w float32) {
		h := fnv.New32a()
		h.Write([]byte(s))
		v[h.Sum32()%testDims] += w
	}
	for _, tok := range search.Tokenize(text) {
		bump(tok, 1)
		r := []rune("^" + tok + "$")
		for j := 0; j+3 <= len(r); j++ {
			bump(string(r[j:j+3]), 0.35)
		}
	}
	search.Normalize(v)
	return v
}

func testOptions(clk clock.Clock) Options {
	o := DefaultOptions()
	o.Clock = clk
	return o
}

func sources(hits []Hit) []string {
	out := make([]string, len(hits))
	for i, h := range hits {
		out[i] = h.Source
	}
	return out
}

func TestHashEmbedderIsSimilarityPreserving(t *testing.T) {
	a, b, c := hashVector("deploy the service"), hashVector("deployment of services"), hashVector("grocery list milk")
	if ab, ac := search.Cosine(a, b), search.Cosine(a, c); ab <= ac {
		t.Fatalf("cos(deploy, deployment) = %v <= cos(deploy, grocery) = %v", ab, ac)
	}
}
