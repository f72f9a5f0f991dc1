package e2e

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/beamclaw/beamclaw-go/test/testenv"
)

// browser is a headless Chromium driven over the DevTools protocol
// (chromedp); it records every console error, exception and CSP
// violation the pages report.
type browser struct {
	t    *testing.T
	ctx  context.Context
	mu   sync.Mutex
	errs []string
	// shots is where screenshots go: $BEAMCLAW_SCREENSHOTS (docs/screenshots
	// when refreshed on purpose) or the test's temporary directory.
	shots string
}

func newBrowser(t *testing.T) *browser {
	t.Helper()
	path, err := exec.LookPath("chromium")
	if err != nil {
		testenv.Unavailable(t, "no chromium to drive the console's browser tests", "apt-get install chromium; .ci/run does")
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(path), chromedp.NoSandbox,
		chromedp.Flag("disable-gpu", true), chromedp.WindowSize(1280, 900), chromedp.UserDataDir(t.TempDir()))
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(alloc)
	b := &browser{t: t, ctx: ctx, shots: os.Getenv("BEAMCLAW_SCREENSHOTS")}
	if b.shots == "" {
		b.shots = t.TempDir()
	}
	if err := chromedp.Do(ctx); err != nil { // starts the browser
		cancel()
		cancelAlloc()
		t.Fatalf("start chromium: %v", err)
	}
	messages := chromedp.Console(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for m, err := range messages {
			if err != nil {
				return
			}
			if m.Type == chromedp.ConsoleError || m.IsException() || strings.Contains(m.Text, "Content Security Policy") {
				b.mu.Lock()
				b.errs = append(b.errs, m.String()+" ("+m.URL+")")
				b.mu.Unlock()
			}
		}
	}()
	t.Cleanup(func() {
		cancel()
		cancelAlloc()
		<-done
	})
	return b
}

// do runs actions, failing the test on an error (30 s at most).
func (b *browser) do(actions ...chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 30*time.Second)
	defer cancel()
	if err := chromedp.Do(ctx, actions...); err != nil {
		b.t.Fatalf("browser: %v (page errors: %v)", err, b.errors())
	}
}

// value runs one action that gives a value.
func value[T any](b *browser, a chromedp.Action[T]) T {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 30*time.Second)
	defer cancel()
	v, err := chromedp.Run(ctx, a)
	if err != nil {
		b.t.Fatalf("browser: %v (page errors: %v)", err, b.errors())
	}
	return v
}

// errors returns, and forgets, the errors the pages reported so far.
func (b *browser) errors() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := b.errs
	b.errs = nil
	return out
}

// text is the text of the first element matching the CSS selector sel.
func (b *browser) text(sel string) string {
	b.t.Helper()
	return value(b, chromedp.Text(chromedp.CSS(sel)))
}

// eval runs a script (a promise is awaited) and returns its string value.
func (b *browser) eval(js string) string {
	b.t.Helper()
	return value(b, chromedp.Evaluate[string](js, chromedp.EvalAwaitPromise))
}

// waitText waits until the text of sel contains want.
func (b *browser) waitText(sel, want string) {
	b.t.Helper()
	js := "document.querySelector(" + quoteJS(sel) + ")?.textContent.includes(" + quoteJS(want) + ")"
	value(b, chromedp.Poll[bool](js, chromedp.WithPollingTimeout(20*time.Second)))
}

func quoteJS(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`, "\n", `\n`).Replace(s) + "'"
}

// phone and desktop are the viewports the console is checked at.
func phone() chromedp.Action[chromedp.Void] {
	return chromedp.EmulateViewport(390, 844, chromedp.EmulateScale(2), chromedp.EmulateMobile)
}

func desktop() chromedp.Action[chromedp.Void] {
	return chromedp.Steps(chromedp.EmulateReset(), chromedp.EmulateViewport(1280, 900))
}

// shoot writes screenshots of the page as name-phone.jpg and
// name-desktop.jpg, and leaves the desktop viewport on.
func (b *browser) shoot(name string) {
	b.t.Helper()
	for _, size := range []struct {
		name string
		view chromedp.Action[chromedp.Void]
	}{{"phone", phone()}, {"desktop", desktop()}} {
		b.do(size.view, chromedp.Sleep(200*time.Millisecond))
		img := value(b, chromedp.FullScreenshot(100))
		if err := os.WriteFile(filepath.Join(b.shots, name+"-"+size.name+".png"), img, 0o644); err != nil {
			b.t.Fatal(err)
		}
	}
}
