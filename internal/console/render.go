package console

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"html/template"
	"io/fs"
	"net/http"
	"path"
	"strings"
	"time"
)

// page is what every template gets.
type page struct {
	Title  string
	Nav    string // the navigation entry to mark
	CSRF   string
	Error  string
	Notice string
	Data   any
	Agent  string // the default agent
	Ver    string
}

// navItem is one entry of the navigation.
type navItem struct {
	Key, Label string
	Current    bool
}

type csrfKey struct{}

func withCSRF(ctx context.Context, csrf string) context.Context {
	return context.WithValue(ctx, csrfKey{}, csrf)
}

func csrfOf(ctx context.Context) string {
	s, _ := ctx.Value(csrfKey{}).(string)
	return s
}

// parse builds one template set per page: the layout plus the page, its
// asset URLs carrying hashes.
func parse(hashes map[string]string) (map[string]*template.Template, error) {
	funcs := template.FuncMap{
		"asset": func(name string) string { return Prefix + "/assets/" + name + "?v=" + hashes[name] },
		"when": func(t time.Time) string {
			if t.IsZero() {
				return "—"
			}
			return t.Local().Format("2006-01-02 15:04")
		},
		"short": func(s string, n int) string {
			if r := []rune(s); len(r) > n {
				return string(r[:n]) + "…"
			}
			return s
		},
		"usd":  func(v float64) string { return fmt.Sprintf("$%.4f", v) },
		"list": func(s ...string) []string { return s },
		"navItem": func(p page, key, label string) navItem {
			return navItem{Key: key, Label: label, Current: p.Nav == key}
		},
		"json": func(v any) (string, error) { b, err := json.Marshal(v); return string(b), err },
	}
	base, err := template.New("layout").Funcs(funcs).ParseFS(templateFS, "templates/layout.html")
	if err != nil {
		return nil, fmt.Errorf("console: %w", err)
	}
	names, err := fs.Glob(templateFS, "templates/*.html")
	if err != nil {
		return nil, fmt.Errorf("console: %w", err)
	}
	out := make(map[string]*template.Template, len(names))
	for _, n := range names {
		name := strings.TrimSuffix(path.Base(n), ".html")
		if name == "layout" {
			continue
		}
		t, err := template.Must(base.Clone()).ParseFS(templateFS, n)
		if err != nil {
			return nil, fmt.Errorf("console: %s: %w", n, err)
		}
		out[name] = t
	}
	return out, nil
}

// render writes page name: its "page" template inside the layout.
func (c *Console) render(w http.ResponseWriter, r *http.Request, status int, name string, p page) {
	b, ok := c.ready(w)
	if !ok {
		return
	}
	t, ok := b.pages[name]
	if !ok {
		http.Error(w, "no template "+name, http.StatusInternalServerError)
		return
	}
	p.CSRF, p.Agent, p.Ver = csrfOf(r.Context()), c.opts.DefaultAgent, c.opts.Version
	if p.Nav == "" {
		p.Nav = name
	}
	var buf bytes.Buffer
	if err := t.ExecuteTemplate(&buf, "layout", p); err != nil {
		c.log.Error("console page failed", "page", name, "err", err)
		http.Error(w, "the page could not be drawn", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

// part writes the template name of page's set with data: a fragment
// htmx swaps into the page.
func (c *Console) part(w http.ResponseWriter, _ *http.Request, pageName, name string, data any) {
	b, ok := c.ready(w)
	if !ok {
		return
	}
	var buf bytes.Buffer
	if err := b.pages[pageName].ExecuteTemplate(&buf, name, data); err != nil {
		c.log.Error("console fragment failed", "page", pageName, "part", name, "err", err)
		http.Error(w, "the page could not be drawn", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	_, _ = w.Write(buf.Bytes())
}

// ready returns the templates and assets (made on the first request), or
// answers 500 when they cannot be made.
func (c *Console) ready(w http.ResponseWriter) (*built, bool) {
	b, err := c.built()
	if err != nil {
		c.log.Error("the console's pages cannot be built", "err", err)
		http.Error(w, "the console cannot be drawn", http.StatusInternalServerError)
		return nil, false
	}
	return b, true
}

// fail answers an error: a page for a browser, a fragment for htmx.
func (c *Console) fail(w http.ResponseWriter, r *http.Request, status int, msg string) {
	if r.Header.Get("HX-Request") == "true" {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("HX-Retarget", "#flash")
		w.Header().Set("HX-Reswap", "innerHTML")
		w.WriteHeader(status)
		_, _ = fmt.Fprintf(w, `<p class="error" role="alert">%s</p>`, template.HTMLEscapeString(msg))
		return
	}
	c.render(w, r, status, "error", page{Title: http.StatusText(status), Error: msg, Nav: "-"})
}

// asset serves an embedded file; a URL carrying its hash is cached for
// good.
func (c *Console) asset(w http.ResponseWriter, r *http.Request) {
	ready, ok := c.ready(w)
	if !ok {
		return
	}
	name := r.PathValue("name")
	b, err := fs.ReadFile(c.assets, name)
	if err != nil {
		c.fail(w, r, http.StatusNotFound, "no such file")
		return
	}
	switch path.Ext(name) {
	case ".js":
		w.Header().Set("Content-Type", "text/javascript; charset=utf-8")
	case ".css":
		w.Header().Set("Content-Type", "text/css; charset=utf-8")
	case ".svg":
		w.Header().Set("Content-Type", "image/svg+xml")
	}
	if r.URL.Query().Get("v") == ready.hashes[name] {
		w.Header().Set("Cache-Control", "public, max-age=31536000, immutable")
	} else {
		w.Header().Set("Cache-Control", "no-cache")
	}
	if z, ok := ready.gz[name]; ok && strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") {
		w.Header().Set("Content-Encoding", "gzip")
		w.Header().Set("Vary", "Accept-Encoding")
		b = z
	}
	_, _ = w.Write(b)
}

// prepare reads every asset once, on the first request: a short hash of each (its
// URL's cache key) and its gzip.
func prepare(assets fs.FS) (hashes map[string]string, gz map[string][]byte, err error) {
	hashes, gz = map[string]string{}, map[string][]byte{}
	err = fs.WalkDir(assets, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(assets, p)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(b)
		hashes[p] = hex.EncodeToString(sum[:6])
		var buf bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
		if _, err := zw.Write(b); err != nil {
			return err
		}
		if err := zw.Close(); err != nil {
			return err
		}
		gz[p] = buf.Bytes()
		return nil
	})
	if err != nil {
		return nil, nil, fmt.Errorf("console: %w", err)
	}
	return hashes, gz, nil
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
