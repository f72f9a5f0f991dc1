package openai

import (
	"context"
	"fmt"
	"math"
	"testing"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/provider/providertest"
	"github.com/beamclaw/beamclaw-go/test/fakellm"
)

func newTestEmbedder(t *testing.T, srv *fakellm.Server, dims int) *Embedder {
	t.Helper()
	sl := &providertest.Sleeps{}
	e, err := NewEmbedder(Options{Name: "fake", BaseURL: srv.URL(), APIKey: "k", Model: "fake-embedding", Sleep: sl.Sleep}, dims)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(e.t.hc.CloseIdleConnections)
	return e
}

func cosine(a, b []float32) float64 {
	var dot, na, nb float64
	for i := range a {
		dot += float64(a[i]) * float64(b[i])
		na += float64(a[i]) * float64(a[i])
		nb += float64(b[i]) * float64(b[i])
	}
	return dot / math.Sqrt(na*nb)
}

func TestEmbed(t *testing.T) {
	srv := fakellm.New(t)
	e := newTestEmbedder(t, srv, 64)
	texts := []string{"the cat sat on the mat", "a cat sat on a mat", "quarterly revenue grew strongly"}
	vecs, err := e.Embed(context.Background(), texts)
	if err != nil {
		t.Fatalf("Embed: %v", err)
	}
	if len(vecs) != 3 || len(vecs[0]) != 64 {
		t.Fatalf("got %d vectors of %d", len(vecs), len(vecs[0]))
	}
	if near, far := cosine(vecs[0], vecs[1]), cosine(vecs[0], vecs[2]); near <= far {
		t.Errorf("similar texts %.3f not closer than unrelated %.3f", near, far)
	}
	reqs := srv.AllRequests()
	if len(reqs) != 1 || reqs[0].Dimensions != 64 || reqs[0].Model != "fake-embedding" || len(reqs[0].Input) != 3 {
		t.Errorf("request = %+v", reqs)
	}
}

func TestEmbedBatchesAndRetries(t *testing.T) {
	srv := fakellm.New(t)
	srv.ScriptFor(fakellm.PathEmbeddings, fakellm.Reply{Status: 503})
	e := newTestEmbedder(t, srv, 8)
	texts := make([]string, embedBatch+3)
	for i := range texts {
		texts[i] = fmt.Sprintf("text number %d", i)
	}
	vecs, err := e.Embed(context.Background(), texts)
	if err != nil {
		t.Fatalf("Embed: %v", err)
	}
	if len(vecs) != len(texts) {
		t.Fatalf("got %d vectors", len(vecs))
	}
	want := fakellm.Vector(texts[embedBatch+1], 8)
	for i := range want {
		if vecs[embedBatch+1][i] != want[i] {
			t.Fatalf("vector %d out of order", embedBatch+1)
		}
	}
	if n := len(srv.AllRequests()); n != 3 { // 503, retry, second batch
		t.Errorf("requests = %d, want 3", n)
	}
}

func TestEmbedErrorKinds(t *testing.T) {
	srv := fakellm.New(t)
	srv.ScriptFor(fakellm.PathEmbeddings, fakellm.Reply{Status: 401})
	e := newTestEmbedder(t, srv, 0)
	if _, err := e.Embed(context.Background(), []string{"x"}); beamclaw.KindOf(err) != beamclaw.KindUnauthorized {
		t.Fatalf("err = %v, want unauthorized", err)
	}
	if _, err := NewEmbedder(Options{BaseURL: srv.URL()}, 0); beamclaw.KindOf(err) != beamclaw.KindInvalid {
		t.Fatalf("NewEmbedder without model err = %v", err)
	}
}

func TestTranscribe(t *testing.T) {
	srv := fakellm.New(t)
	srv.ScriptFor(fakellm.PathTranscriptions, fakellm.Reply{Status: 429}, fakellm.Reply{Text: "remind me to buy milk"})
	sl := &providertest.Sleeps{}
	tr, err := NewTranscriber(Options{Name: "fake", BaseURL: srv.URL(), APIKey: "k", Sleep: sl.Sleep})
	if err != nil {
		t.Fatal(err)
	}
	defer tr.t.hc.CloseIdleConnections()
	text, err := tr.Transcribe(context.Background(), []byte("OggS fake audio"), "voice/file_7.oga")
	if err != nil || text != "remind me to buy milk" {
		t.Fatalf("Transcribe = %q, %v", text, err)
	}
	reqs := srv.AllRequests()
	last := reqs[len(reqs)-1]
	if last.Model != DefaultTranscriptionModel || last.File != "file_7.oga" || last.FileSize != 15 {
		t.Errorf("request = %+v", last)
	}
	srv.ScriptFor(fakellm.PathTranscriptions, fakellm.Reply{Status: 400})
	if _, err := tr.Transcribe(context.Background(), []byte("x"), ""); beamclaw.KindOf(err) != beamclaw.KindInvalid {
		t.Errorf("err = %v, want invalid", err)
	}
}
