package e2e

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/beamclaw/beamclaw-go/pkg/protocol"
	"github.com/beamclaw/beamclaw-go/test/fakellm"
	"github.com/beamclaw/beamclaw-go/test/oauthserver"
)

var consoleCodeRE = regexp.MustCompile(`code: ([A-Z0-9]{4}-[A-Z0-9]{4})`)

// consoleCode runs beamclaw console --no-open and returns its code.
func (r *chatRig) consoleCode() string {
	r.t.Helper()
	out := r.h.must("console", "--no-open").stdout
	m := consoleCodeRE.FindStringSubmatch(out)
	if m == nil || !strings.Contains(out, "http://"+r.addr+"/console/login") {
		r.t.Fatalf("beamclaw console printed:\n%s", out)
	}
	return m[1]
}

// consolePages are the console's pages, screenshot at both sizes.
var consolePages = []string{"sessions", "agents", "agents/default", "agents/default/files/SOUL.md", "skills",
	"mcp", "jobs", "sandboxes", "usage", "events", "config"}

// TestConsoleInABrowser (issue 26, items 2 and 3): headless Chromium signs
// in with a one-time code from beamclaw console (a token in the address
// signs nobody in), chats with a streamed answer, approves a tool call
// asked on the terminal from the approvals inbox on a phone, pauses a job, finds the
// session again after a restart and exports it; a WebSocket opened by a
// page of another origin is refused; no page reports a CSP violation or a
// script error. Screenshots of every page at phone and desktop sizes go
// to $BEAMCLAW_SCREENSHOTS (docs/screenshots when refreshed).
func TestConsoleInABrowser(t *testing.T) {
	token := strings.Repeat("c0ns0le", 6)
	r := newChatRig(t, rigOptions{
		gateway: "  auth: {token: {env: E2E_GATEWAY_TOKEN}}\n  rate_limit: {requests: 100000}\n",
		extra:   "scheduler: {enabled: true}\n",
	})
	r.h.env = append(r.h.env, "E2E_GATEWAY_TOKEN="+token)
	r.llm.SetDefault(fakellm.Rules)
	r.start()
	b := newBrowser(t)
	base := "http://" + r.addr

	// A token in the address is never taken, on the login page or any other.
	for _, u := range []string{"/console/sessions?token=" + token, "/?token=" + token, "/console/login?token=" + token} {
		b.do(chromedp.Navigate(base + u))
		if loc := value(b, chromedp.Location()); !strings.Contains(loc, "/console/login") {
			t.Fatalf("%s with the token in the address reached %s", u, loc)
		}
	}
	if txt := b.text("#flash"); !strings.Contains(txt, "never used") {
		t.Errorf("the login page with a token in the address says %q", txt)
	}
	b.do(chromedp.Navigate(base + "/console/login"))
	b.shoot("login")

	code := r.consoleCode()
	b.do(chromedp.SendKeys(chromedp.ID("secret"), code), chromedp.Submit(chromedp.ID("secret")),
		chromedp.WaitVisible(chromedp.ID("log")))
	b.waitText("#status", "connected")
	b.do(chromedp.SendKeys(chromedp.ID("message"), "hello from the browser"), chromedp.Click(chromedp.CSS("#send button")))
	b.waitText("#log", "echo: hello from the browser")
	b.shoot("chat")

	// An approval asked on the terminal is answered from the inbox, on a
	// phone: one tap, and the tool runs.
	term := r.localConn("ana")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if _, err := term.Send(ctx, `call tool write_file {"path":"from-the-phone.txt","content":"approved"}`); err != nil {
		t.Fatal(err)
	}
	asked := frameOf(t, term, protocol.FrameApprovalRequest)
	b.do(chromedp.Navigate(base+"/console/approvals"), chromedp.WaitVisible(chromedp.ID("approval-"+asked.Approval.ID)))
	b.shoot("approvals")
	b.do(phone(), chromedp.Click(chromedp.CSS("#approval-"+asked.Approval.ID+" button.ok")))
	b.waitText("#approval-"+asked.Approval.ID, "approved")
	if f := frameOf(t, term, protocol.FrameFinal); !strings.Contains(f.Text, "write_file") {
		t.Errorf("the terminal's answer after the approval: %+v", f)
	}
	if got, err := os.ReadFile(filepath.Join(r.h.dir, "agents", "default", "from-the-phone.txt")); err != nil || string(got) != "approved" {
		t.Errorf("the approved tool's file: %q %v", got, err)
	}
	_ = term.Close()
	b.do(desktop())

	job := r.schedJob("--schedule", "every 6h", "--prompt", "check the garden", "--deliver", "silent")
	b.do(chromedp.Navigate(base+"/console/jobs"), chromedp.Click(chromedp.CSS("#job-"+job.ID+" button")))
	b.waitText("#job-"+job.ID, "paused")
	if i := slices.IndexFunc(r.schedList(), func(j protocol.SchedJob) bool { return j.ID == job.ID }); i < 0 || r.schedList()[i].State != "paused" {
		t.Errorf("the job paused in the console is not paused: %+v", r.schedList())
	}

	for _, p := range consolePages {
		b.do(chromedp.Navigate(base+"/console/"+p), chromedp.WaitVisible(chromedp.CSS("main h1")))
		if loc := value(b, chromedp.Location()); !strings.HasSuffix(loc, "/console/"+p) {
			t.Fatalf("/console/%s ended at %s", p, loc)
		}
		b.shoot(strings.ReplaceAll(strings.TrimSuffix(p, ".md"), "/", "-"))
	}

	// After a restart (another port: the sign-in, kept in bbolt, still
	// holds) the session is there, and exports.
	r.h.must("stop")
	r.start()
	base = "http://" + r.addr
	b.do(chromedp.Navigate(base+"/console/sessions"), chromedp.WaitVisible(chromedp.CSS("table.list")))
	if txt := b.text("table.list"); !strings.Contains(txt, "hello from the browser") {
		t.Fatalf("the sessions page after a restart:\n%s", txt)
	}
	b.do(chromedp.Click(chromedp.Search(`//table//a[contains(., "hello from the browser")]`)), chromedp.WaitVisible(chromedp.CSS("ol.log")))
	b.waitText("ol.log", "echo: hello from the browser")
	b.shoot("session")
	md := b.eval(`fetch(document.querySelector('a[href$="format=markdown"]').href).then(r => r.ok ? r.text() : "HTTP " + r.status)`)
	if !strings.Contains(md, "hello from the browser") || !strings.Contains(md, "echo: hello from the browser") {
		t.Errorf("the Markdown export:\n%s", md)
	}
	if errs := b.errors(); len(errs) > 0 {
		t.Errorf("the console's pages reported errors (a CSP violation, a script error):\n%s", strings.Join(errs, "\n"))
	}

	// The chat's WebSocket opens from the console's page, and not from a
	// page of another origin (the browser sends the cookie along: the
	// Origin check is what refuses it).
	ws := `new Promise(res => { const w = new WebSocket("ws://` + r.addr + `/ws"); w.onopen = () => { w.close(); res("open"); }; w.onerror = () => res("refused"); })`
	if got := b.eval(ws); got != "open" {
		t.Errorf("the chat's WebSocket from the console's own page: %s", got)
	}
	b.do(chromedp.Navigate(r.llm.URL() + "/"))
	if got := b.eval(ws); got != "refused" {
		t.Errorf("a WebSocket upgrade from another origin: %s, want refused", got)
	}
}

// TestConsoleMCPLogin (issue 26, item 2): an MCP server waiting for a
// login shows a Log in button; the daemon runs the OAuth flow, the
// browser (on this machine) opens the authorization page, comes back to
// the daemon's loopback listener, and the server is ready.
func TestConsoleMCPLogin(t *testing.T) {
	as := oauthserver.Start(t, oauthserver.Options{TokenTTL: time.Minute, Scope: "mcp:tools"})
	r := newChatRig(t, rigOptions{extra: fmt.Sprintf("mcp:\n  servers:\n    - name: web\n      transport: http\n      url: %q\n      trust: true\n", as.URL())})
	r.llm.SetDefault(fakellm.Rules)
	r.start()
	r.h.waitMCPState("web", "needs_login", 60*time.Second)
	b := newBrowser(t)
	base := "http://" + r.addr
	b.do(chromedp.Navigate(base+"/console/login"), chromedp.SendKeys(chromedp.ID("secret"), r.consoleCode()),
		chromedp.Submit(chromedp.ID("secret")), chromedp.WaitVisible(chromedp.ID("log")))
	b.do(chromedp.Navigate(base+"/console/mcp"), chromedp.Click(chromedp.CSS("#login-web button")),
		chromedp.WaitVisible(chromedp.ID("authorize-web")))
	b.shoot("mcp-login")
	auth := b.eval(`document.getElementById("authorize-web").href`)
	if !strings.HasPrefix(auth, as.Issuer()) {
		t.Fatalf("the authorization page %q is not the server's authorization server %s", auth, as.Issuer())
	}
	b.do(chromedp.Navigate(auth)) // the authorization server approves and sends the browser back to the daemon
	r.h.waitMCPState("web", "ready", 60*time.Second)
	b.do(chromedp.Navigate(base + "/console/mcp"))
	b.waitText("table.list", "ready")
	var mine []string // the loopback callback's page (a favicon asked of a listener gone) is not the console's
	for _, e := range b.errors() {
		if strings.Contains(e, r.addr) {
			mine = append(mine, e)
		}
	}
	if len(mine) > 0 {
		t.Errorf("the console reported errors:\n%s", strings.Join(mine, "\n"))
	}
}

// gateway.console.enabled: false serves no console: its pages and / are
// not found, and beamclaw console has no code to give.
func TestConsoleOff(t *testing.T) {
	r := newChatRig(t, rigOptions{gateway: "  console: {enabled: false}\n"})
	r.start()
	for _, p := range []string{"/", "/console/login", "/console/assets/htmx.min.js"} {
		if code, _ := get(t, "http://"+r.addr+p); code != http.StatusNotFound {
			t.Errorf("GET %s with the console off: %d, want 404", p, code)
		}
	}
	if res := r.h.run("console", "--no-open"); res.code == 0 || !strings.Contains(res.stderr, "gateway.console.enabled: false") {
		t.Errorf("beamclaw console with the console off: exit %d\n%s%s", res.code, res.stdout, res.stderr)
	}
}
