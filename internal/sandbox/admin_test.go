package sandbox

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

func TestStatusListKill(t *testing.T) {
	opts := testOptions(t)
	ev := &events{}
	opts.Emit = ev.Record
	m := startManager(t, opts)
	a := mustRun(t, m, caller("a"), LangSh, "true").Container
	b := mustRun(t, m, caller("b"), LangSh, "true").Container
	ctx := context.Background()

	st := m.Status(ctx)
	if !st.EngineOK || st.ImageID == "" || !st.ImageCurrent || !st.RuntimeOK || st.Containers != 2 || st.Problem != "" {
		t.Fatalf("status %+v", st)
	}
	list, err := m.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 2 || !list[0].Mine || list[0].State != "running" || list[0].Scope != ScopeSession {
		t.Fatalf("list %+v", list)
	}
	if err := m.Kill(ctx, "beamclaw-sbx-"); err == nil || !strings.Contains(err.Error(), "matches 2") {
		t.Errorf("ambiguous kill: %v", err)
	}
	if err := m.Kill(ctx, "nope"); err == nil {
		t.Error("kill of an unknown container succeeded")
	}
	if err := m.Kill(ctx, a); err != nil {
		t.Fatal(err)
	}
	if list, _ = m.List(ctx); len(list) != 1 || list[0].Name != b {
		t.Fatalf("after kill: %+v", list)
	}
	if ev.reaped()[a] != ReapKilled {
		t.Errorf("events %v", ev.reaped())
	}
	// The killed scope gets a fresh container on its next run.
	if c := mustRun(t, m, caller("a"), LangSh, "true").Container; c == a {
		t.Error("killed container reused")
	}
}

func TestBuildImageIsQuickWhenUpToDate(t *testing.T) {
	image := requireImage(t)
	var progress bytes.Buffer
	res, err := BuildImage(context.Background(), BuildOptions{Image: image}, &progress)
	if err != nil {
		t.Fatal(err)
	}
	if res.Built || res.BaseBuilt || res.Content != ImageContentHash() || res.ImageID == "" {
		t.Fatalf("second build: %+v", res)
	}
	if !strings.Contains(progress.String(), "up to date") {
		t.Errorf("progress %q", progress.String())
	}
}
