package daemon

import (
	"github.com/beamclaw/beamclaw-go/internal/config"
	"github.com/beamclaw/beamclaw-go/internal/console"
	"github.com/beamclaw/beamclaw-go/internal/control"
	"github.com/beamclaw/beamclaw-go/internal/gateway"
)

// console builds the web console over the control routes ctl: its pages
// on the TCP listener, its one-time codes on the control socket, and the
// gateway's Admit (its sign-in stands for the token on /ws). Nothing when
// gateway.console is off.
func (d *daemon) console(ctl []gateway.Mount) (public, socket []gateway.Mount, err error) {
	cc := d.plan.Console
	if cc == nil {
		return nil, nil, nil
	}
	logins, err := console.NewLogins(d.db, nil, nil, d.plan.Gateway.Token, cc.SessionTTL)
	if err != nil {
		return nil, nil, err
	}
	c, err := console.New(console.Options{Logins: logins, API: control.Handler(ctl), DefaultAgent: d.plan.DefaultAgent,
		Version: d.opts.Build.Version, Logger: d.log})
	if err != nil {
		return nil, nil, err
	}
	d.admit = c.Admit
	return c.Routes(), c.ControlRoutes(), nil
}

// editConfig sets (value != nil) or unsets key in the config file the
// daemon started from (control.Deps.EditConfig).
func (d *daemon) editConfig(key string, value *string) (string, error) {
	d.editMu.Lock()
	defer d.editMu.Unlock()
	return d.paths.ConfigFile, config.EditKey(d.paths.ConfigFile, key, value)
}
