package console

import (
	"crypto/subtle"
	"embed"
	"fmt"
	"html/template"
	"io/fs"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/beamclaw/beamclaw-go/internal/gateway"
	"github.com/beamclaw/beamclaw-go/pkg/protocol"
)

// Prefix is where the console is served; / redirects there.
const Prefix = "/console"

// CookieName is the console's sign-in cookie.
const CookieName = "beamclaw_console"

// csp is every console response's Content Security Policy: nothing but
// the console's own files, no inline script or style, no framing.
const csp = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
	"font-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

//go:embed templates/*.html
var templateFS embed.FS

//go:embed assets
var assetFS embed.FS

// Options configure the console.
type Options struct {
	Logins *Logins
	// API serves the control routes at their /control paths: the console
	// reads and changes everything through them, in process.
	API          http.Handler
	DefaultAgent string
	Version      string
	Logger       *slog.Logger
}

// Console serves the pages.
type Console struct {
	opts   Options
	log    *slog.Logger
	assets fs.FS
	// built is the parsed templates and the prepared assets, made on the
	// first request: 9 ms a daemon start need not pay.
	built func() (*built, error)
}

// built is what the first request makes (Console.built).
type built struct {
	pages  map[string]*template.Template
	hashes map[string]string // asset name -> short content hash (cache busting)
	gz     map[string][]byte // asset name -> its gzip
}

// New returns the console; it parses nothing before its first request
// and serves nothing until mounted.
func New(opts Options) (*Console, error) {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	assets, err := fs.Sub(assetFS, "assets")
	if err != nil {
		return nil, fmt.Errorf("console: %w", err)
	}
	c := &Console{opts: opts, log: opts.Logger.With("component", "console"), assets: assets}
	c.built = sync.OnceValues(func() (*built, error) {
		b := &built{}
		var err error
		if b.hashes, b.gz, err = prepare(assets); err != nil {
			return nil, err
		}
		if b.pages, err = parse(b.hashes); err != nil {
			return nil, err
		}
		return b, nil
	})
	return c, nil
}

// Routes mount the console on the TCP listener: /console (it checks its
// own sign-in, so the gateway's token check skips it) and GET /, which
// sends a browser there.
func (c *Console) Routes() []gateway.Mount {
	mux := http.NewServeMux()
	mux.HandleFunc("GET "+Prefix+"/assets/{name}", c.asset)
	mux.HandleFunc("GET "+Prefix+"/login", c.loginPage)
	mux.HandleFunc("POST "+Prefix+"/login", c.signIn)
	c.pageRoutes(func(pattern string, h http.HandlerFunc) {
		method, path, _ := strings.Cut(pattern, " ")
		mux.Handle(method+" "+Prefix+path, c.signedIn(h))
	})
	mux.Handle(Prefix+"/", c.signedIn(func(w http.ResponseWriter, r *http.Request) {
		c.fail(w, r, http.StatusNotFound, "no such page")
	}))
	home := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, Prefix+"/", http.StatusSeeOther)
	})
	return []gateway.Mount{
		{Pattern: Prefix, Handler: c.headers(mux), PublicOnly: true, OwnAuth: true},
		{Method: http.MethodGet, Pattern: "/", Handler: home, PublicOnly: true, OwnAuth: true},
	}
}

// ControlRoutes are the console's routes on the control socket: a
// one-time code for beamclaw console.
func (c *Console) ControlRoutes() []gateway.Mount {
	return []gateway.Mount{{Method: http.MethodPost, Pattern: protocol.ControlConsoleCode, Handler: http.HandlerFunc(
		func(w http.ResponseWriter, _ *http.Request) {
			code, exp, err := c.opts.Logins.Code()
			if err != nil {
				writeJSON(w, http.StatusServiceUnavailable, map[string]any{"error": map[string]string{"message": err.Error(), "type": "unavailable"}})
				return
			}
			writeJSON(w, http.StatusOK, protocol.ConsoleCode{Code: code, ExpiresAt: exp.UTC().Format(time.RFC3339), Path: Prefix + "/login"})
		})}}
}

// Admit tells the gateway that a request without the bearer token is a
// signed-in console's: only a WebSocket upgrade of /ws (the chat), with
// the console's cookie and exactly the console's own Origin.
func (c *Console) Admit(r *http.Request) bool {
	if r.URL.Path != protocol.WSPath || r.Method != http.MethodGet || r.Header.Get("Origin") != gateway.OwnOrigin(r) {
		return false
	}
	_, ok := c.loginOf(r)
	return ok
}

// loginOf returns the CSRF token of r's live login.
func (c *Console) loginOf(r *http.Request) (string, bool) {
	ck, err := r.Cookie(CookieName)
	if err != nil {
		return "", false
	}
	return c.opts.Logins.Lookup(ck.Value)
}

// headers sets the security headers of every console response.
func (c *Console) headers(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", csp)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Referrer-Policy", "same-origin") // "no-referrer" would make a browser send Origin: null on form posts
		h.Set("Cross-Origin-Opener-Policy", "same-origin")
		next.ServeHTTP(w, r)
	})
}

// signedIn lets through requests of a live login: a page read, or a
// change carrying the login's CSRF token from the console's own origin.
// Anything else is sent to the login page (a read) or refused (a change).
func (c *Console) signedIn(next http.HandlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		csrf, ok := c.loginOf(r)
		if !ok {
			if r.Method == http.MethodGet || r.Method == http.MethodHead {
				http.Redirect(w, r, Prefix+"/login", http.StatusSeeOther)
				return
			}
			c.fail(w, r, http.StatusUnauthorized, "sign in first")
			return
		}
		if r.Method != http.MethodGet && r.Method != http.MethodHead && !sameOriginChange(r, csrf) {
			c.fail(w, r, http.StatusForbidden, "this change did not come from the console's own page (CSRF check failed); reload the page")
			return
		}
		next.ServeHTTP(w, r.WithContext(withCSRF(r.Context(), csrf)))
	})
}

// sameOriginChange reports whether a change request carries the login's
// CSRF token (header X-CSRF-Token, or form field csrf) and, when the
// browser says where it comes from, comes from the console's origin.
func sameOriginChange(r *http.Request, csrf string) bool {
	if o := r.Header.Get("Origin"); o != "" && o != gateway.OwnOrigin(r) {
		return false
	}
	if s := r.Header.Get("Sec-Fetch-Site"); s != "" && s != "same-origin" {
		return false
	}
	got := r.Header.Get("X-CSRF-Token")
	if got == "" {
		got = r.PostFormValue("csrf")
	}
	return got != "" && subtle.ConstantTimeCompare([]byte(got), []byte(csrf)) == 1
}
