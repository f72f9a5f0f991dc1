package console

import (
	"errors"
	"net/http"
	"time"

	"github.com/beamclaw/beamclaw-go/internal/gateway"
)

// loginPage shows the sign-in form. A secret in the URL (a token or a
// code in the query or fragment) is never read: it would sit in history,
// logs and Referer headers.
func (c *Console) loginPage(w http.ResponseWriter, r *http.Request) {
	if _, ok := c.loginOf(r); ok {
		http.Redirect(w, r, Prefix+"/", http.StatusSeeOther)
		return
	}
	msg := ""
	if r.URL.RawQuery != "" {
		msg = "A token or code in the address is never used: type it below."
	}
	c.render(w, r, http.StatusOK, "login", page{Title: "Sign in", Error: msg})
}

// signIn exchanges the posted secret for the login cookie. The form must
// come from the console's own page (its Origin), and only the body is
// read, never the query.
func (c *Console) signIn(w http.ResponseWriter, r *http.Request) {
	if o := r.Header.Get("Origin"); o != "" && o != gateway.OwnOrigin(r) {
		c.render(w, r, http.StatusForbidden, "login", page{Title: "Sign in", Error: "sign in from the console's own page"})
		return
	}
	if err := r.ParseForm(); err != nil {
		c.render(w, r, http.StatusBadRequest, "login", page{Title: "Sign in", Error: "the form could not be read"})
		return
	}
	cookie, _, err := c.opts.Logins.SignIn(r.PostForm.Get("secret"))
	if err != nil {
		status := http.StatusUnauthorized
		if errors.Is(err, ErrTooManyTries) {
			status = http.StatusTooManyRequests
		}
		if !errors.Is(err, ErrBadSecret) && !errors.Is(err, ErrTooManyTries) {
			c.log.Error("console sign-in failed", "err", err)
			status = http.StatusServiceUnavailable
		}
		c.log.Warn("console sign-in refused", "remote", r.RemoteAddr)
		c.render(w, r, status, "login", page{Title: "Sign in", Error: err.Error()})
		return
	}
	http.SetCookie(w, &http.Cookie{Name: CookieName, Value: cookie, Path: "/", HttpOnly: true,
		SameSite: http.SameSiteStrictMode, Secure: gateway.IsHTTPS(r), MaxAge: int(c.opts.Logins.ttl / time.Second)})
	c.log.Info("console signed in", "remote", r.RemoteAddr)
	http.Redirect(w, r, Prefix+"/", http.StatusSeeOther)
}

// signOut forgets the login and its cookie.
func (c *Console) signOut(w http.ResponseWriter, r *http.Request) {
	if ck, err := r.Cookie(CookieName); err == nil {
		if err := c.opts.Logins.SignOut(ck.Value); err != nil {
			c.fail(w, r, http.StatusServiceUnavailable, err.Error())
			return
		}
	}
	http.SetCookie(w, &http.Cookie{Name: CookieName, Value: "", Path: "/", HttpOnly: true,
		SameSite: http.SameSiteStrictMode, Secure: gateway.IsHTTPS(r), MaxAge: -1})
	http.Redirect(w, r, Prefix+"/login", http.StatusSeeOther)
}
