package daemon

import (
	"fmt"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/beamclaw/beamclaw-go/internal/channel/telegram"
	"github.com/beamclaw/beamclaw-go/internal/config"
	"github.com/beamclaw/beamclaw-go/internal/obs"
)

// consumedBase turns every optional part on (Telegram in webhook mode with
// voice, embeddings, rate limiting, an extra agent, MCP servers of both
// transports, A2A with a peer, the sandbox, the scheduler), so that each key has a path to the plan.
const consumedBase = `
gateway:
  http: {addr: "127.0.0.1:0"}
  auth: {token: {env: GW_TOKEN}}
  rate_limit: {enabled: true}
  ws: {allowed_origins: ["https://app.example.com"]}
  channels:
    telegram:
      enabled: true
      token: {env: TG_TOKEN}
      mode: webhook
      webhook_url: https://bot.example.com/webhook/telegram
      webhook_secret: {env: TG_SECRET}
      allow_from: ["42"]
      groups: {enabled: true, allow: ["-100"], trigger: mention, members: paired}
      photo: {enabled: true}
      voice: {enabled: true, stt_api_key: {env: STT_KEY}}
    webhook:
      - {name: ci, secret: {env: CI_SECRET}, agent: default, deliver_url: "https://ci.example.com/answer"}
core:
  providers:
    local: {base_url: "http://127.0.0.1:9/v1", model: local-model, api_keys: [{env: LOCAL_KEY_2}]}
  fallback_providers: [openai]
  agents:
    coder: {provider: openai, model: gpt-4o-mini, autonomy_level: full, memory_scope: user, fallback_providers: [local]}
  agentic_loop: {auto_context: true, compaction_provider: openai, compaction_model: gpt-4o-mini}
  skills: {allow_flagged: [github]}
  maintenance: {enabled: true}
  costs: {rates: {"openai/gpt-4o-mini": {input: 0.15, output: 0.6, cached: 0.075}}}
  budgets: [{scope: agent, period: day, tokens: 1000, usd: 1.5, action: route_down, route_down_model: gpt-4o-mini, warn_percent: 70}]
memory:
  embedding: {enabled: true, api_key: {env: EMB_KEY}}
  search: {workspace_files: [MEMORY.md]}
tools:
  file_roots: [/tmp]
  web_search: {api_key: {env: BRAVE_KEY}}
mcp:
  servers:
    - {name: web, transport: http, url: "http://127.0.0.1:9/mcp", headers: {X-Token: {env: MCP_TOKEN}}, agents: [coder],
       oauth: {client_id: beamclaw, client_secret: {env: MCP_OAUTH_SECRET}, client_metadata_url: "https://beamclaw.example.com/client.json",
               scopes: [read], redirect_port: 8765}}
    - {name: local, transport: stdio, command: echo, args: [hi], env: {MODE: plain}, cwd: /tmp}
a2a:
  agents: [coder]
  public_url: "https://agents.example.com"
  peers:
    research: {url: "https://research.example.com", token: {env: PEER_TOKEN}}
sandbox: {enabled: true}
scheduler: {enabled: true}
cluster:
  enabled: true
  name: team
  node_id: n1
  routes: ["nats-route://127.0.0.1:6223", "nats-route://127.0.0.1:6225"]
  token: {env: CLUSTER_TOKEN}
  tls: {cert_file: c.pem, key_file: k.pem, ca_file: ca.pem}
`

// A config key is consumed when changing it changes the plan the daemon
// builds from the config. Every key must be consumed, or be covered by
// config.Reserved (a subsystem not built yet), which config check, doctor
// and start warn about. A new key without wiring fails here, naming it.
func TestEveryConfigKeyIsConsumed(t *testing.T) {
	getenv := func(k string) string { return "value-of-" + k + "-0123456789abcdefghijklmnopqrstuvwxyz" }
	unconsumed, staleReserve := unreadKeys(t, getenv, func(c *config.Config) string { return planDump(t, c, getenv) })
	if len(unconsumed) > 0 {
		t.Errorf("config keys that reach no code (wire them in buildPlan, or reserve their section in config.Reserved):\n  %s",
			strings.Join(unconsumed, "\n  "))
	}
	if len(staleReserve) > 0 {
		t.Errorf("reserved keys that are now read (remove their section from config.Reserved):\n  %s",
			strings.Join(staleReserve, "\n  "))
	}
}

// The test above must fail for a key nothing reads, of every kind: a
// plain key the plan ignores (core.maintenance.pre_expiry_minutes), and a
// secret nothing uses (the plan collects every secret's value for the
// scrubber; a secret whose consumer dropped it must still be reported).
// The third kind, a new field of a config struct the plan copies whole,
// cannot arise: TestPlanHoldsNoConfigStruct.
func TestConsumedDetectsAnUnreadKey(t *testing.T) {
	getenv := func(k string) string { return "value-of-" + k + "-0123456789abcdefghijklmnopqrstuvwxyz" }
	for _, c := range []struct {
		key    string
		before func(*config.Config) // the config the plan is built from
		after  func(*plan)          // the plan built
	}{
		{key: "core.maintenance.pre_expiry_minutes", before: func(c *config.Config) { c.Core.Maintenance.PreExpiryMinutes = 0 }},
		{key: "tools.web_search.api_key", after: func(p *plan) { p.Tools.Tools.WebSearch.APIKey = "" }},
		{key: "gateway.channels.webhook[0].allow_private_delivery", after: func(p *plan) {
			for _, cp := range p.Channels { // a registered channel's key, dropped by its Options
				if v := reflect.ValueOf(cp.Options); v.Kind() == reflect.Slice {
					for j := range v.Len() {
						v.Index(j).FieldByName("AllowPrivate").SetBool(false)
					}
				}
			}
		}},
		{key: "gateway.channels.telegram.webhook_secret", after: func(p *plan) {
			for i, cp := range p.Channels { // a secret of a registered channel, dropped by its Options
				if o, ok := cp.Options.(telegram.Options); ok {
					o.WebhookSecret = ""
					p.Channels[i].Options = o
				}
			}
		}},
	} {
		blind := func(cfg *config.Config) string {
			cc := *cfg
			if c.before != nil {
				c.before(&cc)
			}
			p, err := buildPlan(config.Loaded{Config: &cc, Paths: config.NewPaths("/home/test"), Keys: map[string]int{}}, getenv)
			if err != nil {
				t.Fatalf("buildPlan: %v", err)
			}
			if c.after != nil {
				c.after(p)
			}
			return dumpPlan(p)
		}
		unconsumed, _ := unreadKeys(t, getenv, blind)
		if len(unconsumed) != 1 || unconsumed[0] != c.key {
			t.Errorf("a key the plan ignores (%s) was not the one reported: %v", c.key, unconsumed)
		}
	}
}

// TestPlanHoldsNoConfigStruct: the plan holds each package's Options, never
// a struct of the file's schema. A schema struct copied whole would let a
// key added to it, and read by nothing, change the plan and pass as
// consumed (obs.log once did: the plan held the config's Log).
func TestPlanHoldsNoConfigStruct(t *testing.T) {
	schema := schemaStructs(reflect.TypeFor[config.Config](), map[reflect.Type]bool{})
	if bad := typesIn(reflect.TypeFor[plan](), "plan", schema, map[reflect.Type]bool{}); len(bad) > 0 {
		t.Errorf("the plan holds structs of the config file (build Options field by field):\n  %s", strings.Join(bad, "\n  "))
	}
	// A registered channel's options are held as any: their dynamic type
	// must hold no schema struct either.
	p, err := buildPlan(config.Loaded{Config: mustParse(t, consumedBase), Paths: config.NewPaths("/home/test"), Keys: map[string]int{}},
		func(k string) string { return "value-of-" + k + "-0123456789abcdefghijklmnopqrstuvwxyz" })
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Channels) == 0 {
		t.Fatal("the base config turns no registered channel on")
	}
	for _, cp := range p.Channels {
		if bad := typesIn(reflect.TypeOf(cp.Options), "channel "+string(cp.Module.Name), schema, map[reflect.Type]bool{}); len(bad) > 0 {
			t.Errorf("a channel's options hold structs of the config file:\n  %s", strings.Join(bad, "\n  "))
		}
	}
	// The check itself: a plan-like struct holding obs.LogConfig is caught.
	type leaky struct {
		Addr string
		Log  obs.LogConfig
	}
	if bad := typesIn(reflect.TypeFor[leaky](), "leaky", schema, map[reflect.Type]bool{}); len(bad) != 1 {
		t.Errorf("a copied obs.LogConfig was not caught: %v", bad)
	}
}

// schemaStructs collects the struct types of the file's schema (leaf value
// types such as Secret and Duration aside: they are values, not sections).
func schemaStructs(t reflect.Type, out map[reflect.Type]bool) map[reflect.Type]bool {
	switch t.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Array, reflect.Map:
		return schemaStructs(t.Elem(), out)
	case reflect.Struct:
		if out[t] || t == secretType || t == envValueType || t == durationType {
			return out
		}
		out[t] = true
		for i := range t.NumField() {
			schemaStructs(t.Field(i).Type, out)
		}
	}
	return out
}

// typesIn lists the paths in t whose type is one of schema.
func typesIn(t reflect.Type, path string, schema, seen map[reflect.Type]bool) []string {
	switch t.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Array, reflect.Map:
		return typesIn(t.Elem(), path, schema, seen)
	case reflect.Struct:
		if schema[t] {
			return []string{path + " (" + t.String() + ")"}
		}
		if seen[t] {
			return nil
		}
		seen[t] = true
		var out []string
		for i := range t.NumField() {
			out = append(out, typesIn(t.Field(i).Type, path+"."+t.Field(i).Name, schema, seen)...)
		}
		return out
	}
	return nil
}

// unreadKeys changes each key of consumedBase alone and reports those that
// change nothing dump shows (unconsumed, unless reserved) and the
// reserved ones that do change it.
func unreadKeys(t *testing.T, getenv func(string) string, dump func(*config.Config) string) (unconsumed, staleReserve []string) {
	t.Helper()
	base := mustParse(t, consumedBase)
	baseDump := dump(base)
	consumed := map[string]bool{} // by key with list indexes removed
	stuck := map[string]leaf{}    // keys no candidate could change alone
	for _, leaf := range configLeaves(reflect.ValueOf(base).Elem(), nil) {
		key := leaf.key()
		mutated, ok := mutate(t, leaf, getenv)
		if !ok {
			stuck[key] = leaf
			continue
		}
		changed := dump(mutated) != baseDump
		_, reserved := config.ReservedKey(key)
		consumed[generic(key)] = consumed[generic(key)] || changed
		switch {
		case !changed && !reserved:
			unconsumed = append(unconsumed, key)
		case changed && reserved:
			staleReserve = append(staleReserve, key)
		}
	}
	// A key that cannot change alone in one list element (a stdio
	// server's url) is proven by the same key in another element.
	for key, l := range stuck {
		if oneValue.MatchString(key) {
			continue
		}
		if _, reserved := config.ReservedKey(key); !consumed[generic(key)] && !reserved {
			t.Errorf("%s: no candidate value passes Validate (first try: %v); add one to stringCandidates", key, firstTry(t, l, getenv))
		}
	}
	return unconsumed, staleReserve
}

// oneValue matches keys that have a single valid value today, so no
// change of them alone validates: core.providers.<name>.kind while
// "openai" is the only registered adapter. TestProviderKindPicksTheAdapter
// proves that key reaches code; drop it here once a second kind exists.
var oneValue = regexp.MustCompile(`^core\.providers\.[^.]+\.kind$`)

// generic is key without its list indexes: mcp.servers[1].url is
// mcp.servers[].url.
func generic(key string) string { return listIndex.ReplaceAllString(key, "[]") }

var listIndex = regexp.MustCompile(`\[\d+\]`)

func mustParse(t *testing.T, yaml string) *config.Config {
	t.Helper()
	c, err := config.Parse("consumed.yaml", []byte(yaml))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func planDump(t *testing.T, c *config.Config, getenv func(string) string) string {
	t.Helper()
	p, err := buildPlan(config.Loaded{Config: c, Paths: config.NewPaths("/home/test"), Keys: map[string]int{}}, getenv)
	if err != nil {
		t.Fatalf("buildPlan: %v", err)
	}
	return dumpPlan(p)
}

// notCompared are the plan's fields that prove nothing: the resolved
// values of every secret (collected for the scrubber, whether anything
// uses the secret or not: a secret is consumed when a consumer's Options
// hold it) and the warnings printed at start.
var notCompared = map[string]bool{"Secrets": true, "Warnings": true}

func dumpPlan(p *plan) string {
	var b strings.Builder
	v := reflect.ValueOf(p).Elem()
	for i := range v.NumField() {
		if name := v.Type().Field(i).Name; !notCompared[name] {
			b.WriteString(name + ":")
			dump(&b, v.Field(i), map[uintptr]bool{})
			b.WriteString(" ")
		}
	}
	return b.String()
}

// dump writes v deterministically: maps sorted, pointers followed once,
// functions and channels (the live parts the wiring adds) left out.
func dump(b *strings.Builder, v reflect.Value, seen map[uintptr]bool) {
	switch v.Kind() {
	case reflect.Invalid:
		b.WriteString("<nil>")
	case reflect.Func, reflect.Chan, reflect.UnsafePointer:
		b.WriteString("-")
	case reflect.Pointer:
		if v.IsNil() {
			b.WriteString("nil")
			return
		}
		if seen[v.Pointer()] {
			b.WriteString("<cycle>")
			return
		}
		seen[v.Pointer()] = true
		dump(b, v.Elem(), seen)
	case reflect.Interface:
		if v.IsNil() {
			b.WriteString("nil")
			return
		}
		dump(b, v.Elem(), seen)
	case reflect.Struct:
		b.WriteString("{")
		for i := range v.NumField() {
			b.WriteString(v.Type().Field(i).Name + ":")
			dump(b, v.Field(i), seen)
			b.WriteString(" ")
		}
		b.WriteString("}")
	case reflect.Slice, reflect.Array:
		b.WriteString("[")
		for i := range v.Len() {
			dump(b, v.Index(i), seen)
			b.WriteString(" ")
		}
		b.WriteString("]")
	case reflect.Map:
		keys := v.MapKeys()
		sort.Slice(keys, func(i, j int) bool { return fmt.Sprint(keys[i]) < fmt.Sprint(keys[j]) })
		b.WriteString("map[")
		for _, k := range keys {
			dump(b, k, seen)
			b.WriteString(":")
			dump(b, v.MapIndex(k), seen)
			b.WriteString(" ")
		}
		b.WriteString("]")
	case reflect.String:
		b.WriteString(strconv.Quote(v.String()))
	case reflect.Bool:
		b.WriteString(strconv.FormatBool(v.Bool()))
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		b.WriteString(strconv.FormatInt(v.Int(), 10))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		b.WriteString(strconv.FormatUint(v.Uint(), 10))
	case reflect.Float32, reflect.Float64:
		b.WriteString(strconv.FormatFloat(v.Float(), 'g', -1, 64))
	default:
		fmt.Fprintf(b, "%v", v)
	}
}

// step is one part of a key's path: a struct field (by YAML name), a map
// key or a list index.
type step struct {
	field string
	key   *string
	index int
}

type leaf struct {
	path []step
	typ  reflect.Type
}

func (l leaf) key() string {
	var b strings.Builder
	for _, s := range l.path {
		switch {
		case s.key != nil:
			b.WriteString("." + *s.key)
		case s.field != "":
			if b.Len() > 0 {
				b.WriteString(".")
			}
			b.WriteString(s.field)
		default:
			fmt.Fprintf(&b, "[%d]", s.index)
		}
	}
	return b.String()
}

// Leaf types: values a user sets as a whole.
var (
	secretType   = reflect.TypeFor[config.Secret]()
	envValueType = reflect.TypeFor[config.EnvValue]()
	durationType = reflect.TypeFor[config.Duration]()
	hoursType    = reflect.TypeFor[config.HourRange]()
)

// configLeaves lists the settable keys under v: struct fields by YAML
// name, and the entries of maps and lists of structs that v holds.
func configLeaves(v reflect.Value, path []step) []leaf {
	t := v.Type()
	if t == secretType || t == envValueType || t == durationType || t == hoursType {
		return []leaf{{path: path, typ: t}}
	}
	switch t.Kind() {
	case reflect.Struct:
		var out []leaf
		for _, f := range config.Fields(t) {
			out = append(out, configLeaves(v.FieldByIndex(f.Index), appendStep(path, step{field: f.Name}))...)
		}
		return out
	case reflect.Map:
		if t.Elem().Kind() != reflect.Struct {
			return []leaf{{path: path, typ: t}}
		}
		keys := v.MapKeys()
		sort.Slice(keys, func(i, j int) bool { return keys[i].String() < keys[j].String() })
		var out []leaf
		for _, k := range keys {
			name := k.String()
			out = append(out, configLeaves(v.MapIndex(k), appendStep(path, step{key: &name}))...)
		}
		return out
	case reflect.Slice:
		if t.Elem().Kind() != reflect.Struct {
			return []leaf{{path: path, typ: t}}
		}
		var out []leaf
		for i := range v.Len() {
			out = append(out, configLeaves(v.Index(i), appendStep(path, step{index: i}))...)
		}
		return out
	}
	return []leaf{{path: path, typ: t}}
}

func appendStep(path []step, s step) []step {
	return append(append([]step(nil), path...), s)
}

// mutate returns a copy of the base config with the leaf changed to the
// first candidate value that still validates.
func mutate(t *testing.T, l leaf, getenv func(string) string) (*config.Config, bool) {
	t.Helper()
	for i := 0; ; i++ {
		c := mustParse(t, consumedBase)
		applied := false
		set(reflect.ValueOf(c).Elem(), l.path, func(v reflect.Value) { applied = candidate(v, i) })
		if !applied {
			return nil, false
		}
		if fix, ok := companions[generic(l.key())]; ok {
			fix(c, l.path)
		}
		if c.Validate() == nil && c.ValidateRuntime(getenv) == nil {
			return c, true
		}
	}
}

// companions complete a change that is only valid together with others:
// a server that changes transport needs that transport's fields.
var companions = map[string]func(c *config.Config, path []step){
	"mcp.servers[].transport": func(c *config.Config, path []step) {
		s := &c.MCP.Servers[path[2].index]
		if s.Transport == "stdio" {
			s.Command, s.URL, s.Headers = "echo", "", nil
		} else {
			s.URL, s.Command, s.Args, s.Env, s.Cwd = "http://127.0.0.1:9/other", "", nil, nil, ""
		}
	},
}

// firstTry is the validation error of the first candidate, for messages.
func firstTry(t *testing.T, l leaf, getenv func(string) string) error {
	c := mustParse(t, consumedBase)
	set(reflect.ValueOf(c).Elem(), l.path, func(v reflect.Value) { candidate(v, 0) })
	if err := c.Validate(); err != nil {
		return err
	}
	return c.ValidateRuntime(getenv)
}

// set applies fn to the value at path, copying map entries out and back.
func set(v reflect.Value, path []step, fn func(reflect.Value)) {
	if len(path) == 0 {
		fn(v)
		return
	}
	s, rest := path[0], path[1:]
	switch {
	case s.key != nil:
		k := reflect.ValueOf(*s.key)
		e := reflect.New(v.Type().Elem()).Elem()
		e.Set(v.MapIndex(k))
		set(e, rest, fn)
		v.SetMapIndex(k, e)
	case s.field != "":
		for _, f := range config.Fields(v.Type()) {
			if f.Name == s.field {
				set(v.FieldByIndex(f.Index), rest, fn)
				return
			}
		}
		panic("no field " + s.field)
	default:
		set(v.Index(s.index), rest, fn)
	}
}

// candidate sets v to its i-th alternative value and reports whether
// there was one.
func candidate(v reflect.Value, i int) bool {
	switch v.Type() {
	case secretType:
		return pick(i, 1, func() { v.Set(reflect.ValueOf(config.Env("CHANGED_VAR"))) })
	case envValueType:
		return pick(i, 1, func() { v.Set(reflect.ValueOf(config.EnvValue{Value: "changed"})) })
	case durationType:
		d := v.Interface().(config.Duration)
		return pick(i, 1, func() { v.Set(reflect.ValueOf(config.Duration{Duration: d.Duration + time.Second})) })
	case hoursType:
		return pick(i, 1, func() { v.Set(reflect.ValueOf(config.HourRange{5, 7})) })
	}
	switch v.Kind() {
	case reflect.Bool:
		return pick(i, 1, func() { v.SetBool(!v.Bool()) })
	case reflect.Int, reflect.Int64:
		n := v.Int()
		alts := slicesWithout([]int64{n + 1, n - 1, n * 2, 1, 2, 60, 4096}, n) // 0*2 is no change
		return pick(i, len(alts), func() { v.SetInt(alts[i]) })
	case reflect.Float64:
		f := v.Float()
		alts := []float64{f / 2, f + 0.1, 0.5, 0.25}
		return pick(i, len(alts), func() { v.SetFloat(alts[i]) })
	case reflect.String:
		alts := slicesWithout(stringCandidates, v.String())
		return pick(i, len(alts), func() { v.SetString(alts[i]) })
	case reflect.Slice:
		alts := stringCandidates
		return pick(i, len(alts), func() { v.Set(reflect.Append(v, reflect.ValueOf(alts[i]))) })
	case reflect.Map:
		if v.Type().Elem() == envValueType {
			return pick(i, 1, func() { setMapEntry(v, "NEW_ENTRY", reflect.ValueOf(config.EnvValue{Value: "x"})) })
		}
		if v.Type().Elem().Kind() == reflect.Int { // sizes by name (tools.page_bytes_per_tool)
			return pick(i, 1, func() { setMapEntry(v, "bash", reflect.ValueOf(4096)) })
		}
		alts := [][2]string{{"a2a", "full"}, {"tui", "read_only"}}
		return pick(i, len(alts), func() { setMapEntry(v, alts[i][0], reflect.ValueOf(alts[i][1])) })
	}
	panic("no candidates for " + v.Type().String())
}

func pick(i, n int, apply func()) bool {
	if i >= n {
		return false
	}
	apply()
	return true
}

func setMapEntry(m reflect.Value, k string, v reflect.Value) {
	if m.IsNil() {
		m.Set(reflect.MakeMap(m.Type()))
	}
	m.SetMapIndex(reflect.ValueOf(k), v)
}

// stringCandidates are tried in order for strings (and appended to
// lists of strings) until the config validates: enum values, addresses,
// URLs, names that exist in the base config.
var stringCandidates = []string{
	"openai", "openrouter", "local", "coder", "default", "full", "read_only", "supervised", "per_channel", "shared",
	"debug", "json", "/tmp/beamclaw-test.log", "long_poll", "webhook", "open", "allowlist", "closed", "memory", "bbolt",
	"deny", "approve", "allow", "bridge", "host", "stdio", "http", "2025-06-18", "ro", "rw", "none", "agent", "session",
	"127.0.0.1:18899", "http://127.0.0.1:9/v1", "https://bot.example.com/other", "https://app.example.org",
	"10.0.0.0/8", "gpt-4o-mini", "other-model", "/tmp", "NOTES.md", "99", "@someone", "-200", "--flag", "github2",
	"whisper-1", "echo", "changed", "client_credentials", "https://beamclaw.example.org/client.json", "runsc",
	"Europe/Berlin", "tui", "silent", "1g", "all", "anyone", "month", "block", "on", "nats-route://127.0.0.1:6224",
}

func slicesWithout[T comparable](list []T, s T) []T {
	out := make([]T, 0, len(list))
	for _, x := range list {
		if x != s {
			out = append(out, x)
		}
	}
	return out
}
