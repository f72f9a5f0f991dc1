package sandbox

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/moby/moby/client"
)

// probeScript reports, as JSON, what a script can see and do.
const probeScript = `
import json, os
facts = {"uid": os.getuid(), "gid": os.getgid()}
for line in open("/proc/self/status"):
    if line.startswith(("CapEff:", "CapPrm:", "CapBnd:", "NoNewPrivs:")):
        k, v = line.split(":", 1)
        facts[k] = v.strip()
facts["ifaces"] = sorted(os.listdir("/sys/class/net"))
for path in ("/probe", "/usr/probe", "/opt/beamclaw/probe", "/tools/probe", "/run/beamclaw/probe"):
    try:
        open(path, "w").write("x")
        facts[path] = "written"
    except OSError as e:
        facts[path] = e.strerror
open("/tmp/probe", "w").write("ok")
facts["tmp"] = open("/tmp/probe").read()
try:
    os.chmod("/tmp/probe", 0o755)
    os.execv("/tmp/probe", ["/tmp/probe"])
except OSError as e:
    facts["exec_tmp"] = e.strerror
for d in ("/dev/shm", "/dev/mqueue"):
    try:
        open(d + "/probe", "w").write("x")
        facts[d] = "written"
    except OSError as e:
        facts[d] = e.strerror
facts["env"] = dict(os.environ)
print(json.dumps(facts))
`

func TestHardening(t *testing.T) {
	opts := testOptions(t)
	opts.Environ = func() []string {
		return []string{
			"PATH=/host/bin", "HOME=/root", "LANG=C.UTF-8", "TERM=xterm",
			"OPENAI_API_KEY=sk-hostsecretvalue00000000000000", "TELEGRAM_BOT_TOKEN=123456789:AAhostbottoken",
			"BEAMCLAW_GATEWAY_TOKEN=gateway-secret-value", "AWS_SECRET_ACCESS_KEY=aws-secret-value",
			"MY_SERVICE_PASSWORD=hunter22", "TERMINFO_SECRET=x", "GIT_AUTHOR_NAME=someone",
		}
	}
	opts.EnvAllowlist = []string{"PATH", "HOME", "LANG", "TERM", "*_API_KEY", "*_TOKEN", "*PASSWORD*"}
	opts.SecretValues = []string{"xterm-leaks-nothing", "sk-hostsecretvalue00000000000000"}
	m := startManager(t, opts)
	res := mustRun(t, m, caller("s-hard"), LangPython, probeScript)
	if res.ExitCode != 0 {
		t.Fatalf("probe failed:\n%s", dump(res))
	}
	var f map[string]any
	if err := json.Unmarshal([]byte(res.Stdout), &f); err != nil {
		t.Fatalf("probe output: %v\n%s", err, dump(res))
	}
	if f["uid"].(float64) == 0 || f["gid"].(float64) == 0 {
		t.Errorf("runs as root: uid %v gid %v", f["uid"], f["gid"])
	}
	for _, k := range []string{"CapEff", "CapPrm"} {
		if f[k] != "0000000000000000" {
			t.Errorf("%s = %v, want no capabilities", k, f[k])
		}
	}
	// The bounding set keeps the runner's kill, setgid and setuid (bits
	// 5, 6, 7), which no-new-privileges makes impossible to regain.
	if f["CapBnd"] != "00000000000000e0" {
		t.Errorf("CapBnd = %v, want only CAP_KILL, CAP_SETGID and CAP_SETUID (00000000000000e0)", f["CapBnd"])
	}
	if f["/dev/mqueue"] == "written" {
		t.Errorf("/dev/mqueue is writable")
	}
	if f["/dev/shm"] != "written" {
		t.Errorf("/dev/shm: %v, want writable (a run's own files, like /tmp)", f["/dev/shm"])
	}
	if f["NoNewPrivs"] != "1" {
		t.Errorf("NoNewPrivs = %v", f["NoNewPrivs"])
	}
	if ifs, _ := json.Marshal(f["ifaces"]); string(ifs) != `["lo"]` {
		t.Errorf("interfaces %s, want only lo", ifs)
	}
	for _, p := range []string{"/probe", "/usr/probe", "/opt/beamclaw/probe", "/tools/probe", "/run/beamclaw/probe"} {
		if f[p] == "written" {
			t.Errorf("%s is writable", p)
		}
	}
	if f["tmp"] != "ok" {
		t.Errorf("/tmp not writable: %v", f["tmp"])
	}
	if f["exec_tmp"] != "Permission denied" {
		t.Errorf("exec from /tmp: %v, want Permission denied (noexec)", f["exec_tmp"])
	}
	env := f["env"].(map[string]any)
	for k, v := range env {
		s := v.(string)
		for _, secret := range []string{"hostsecret", "hostbottoken", "gateway-secret", "aws-secret", "hunter22"} {
			if strings.Contains(s, secret) || strings.Contains(k, "API_KEY") || strings.Contains(k, "PASSWORD") {
				t.Errorf("secret visible in the sandbox: %s=%s", k, s)
			}
		}
	}
	if env["PATH"] == "/host/bin" || env["HOME"] != "/tmp" || env["TERM"] != "xterm" {
		t.Errorf("env PATH=%v HOME=%v TERM=%v: want the image's PATH, HOME=/tmp and the allowed TERM", env["PATH"], env["HOME"], env["TERM"])
	}
	assertContainerConfig(t, m, res.Container)
}

// assertContainerConfig checks the engine's view of the container.
func assertContainerConfig(t *testing.T, m *Manager, name string) {
	t.Helper()
	c := testEngine(t)
	ins, err := c.ContainerInspect(context.Background(), name, client.ContainerInspectOptions{})
	if err != nil {
		t.Fatal(err)
	}
	hc, cfg := ins.Container.HostConfig, ins.Container.Config
	checks := []struct {
		what string
		ok   bool
	}{
		{"read-only root", hc.ReadonlyRootfs},
		{"cap-drop ALL", len(hc.CapDrop) == 1 && hc.CapDrop[0] == "ALL"},
		{"no-new-privileges", len(hc.SecurityOpt) == 1 && hc.SecurityOpt[0] == "no-new-privileges"},
		{"network none", string(hc.NetworkMode) == "none"},
		{"init", hc.Init != nil && *hc.Init},
		{"pids limit", hc.PidsLimit != nil && *hc.PidsLimit == int64(m.opts.PidsLimit)},
		{"memory = memory-swap", hc.Memory == m.limits.memory && hc.MemorySwap == hc.Memory},
		{"cpu", hc.NanoCPUs == m.limits.nanoCPUs},
		{"tmpfs /tmp noexec", strings.Contains(hc.Tmpfs["/tmp"], "noexec") && strings.Contains(hc.Tmpfs["/tmp"], "size=64m")},
		{"json-file log with max size", hc.LogConfig.Type == "json-file" && hc.LogConfig.Config["max-size"] != ""},
		{fmt.Sprintf("runner user root with only kill, setuid and setgid (user %q, cap-add %v)", cfg.User, hc.CapAdd), cfg.User == runnerUser &&
			strings.ReplaceAll(strings.Join(hc.CapAdd, ","), "CAP_", "") == strings.Join(runnerCaps, ",")}, // both sorted
		{"mqueue hidden", strings.HasPrefix(hc.Tmpfs["/dev/mqueue"], "ro,")},
		{"label install", cfg.Labels[LabelInstall] == m.opts.InstallID},
		{"label session", cfg.Labels[LabelSession] == "s-hard"},
		{"label posture", len(cfg.Labels[LabelPosture]) == 32},
		{"label daemon", cfg.Labels[LabelDaemon] == m.daemon.String()},
		{"script not in argv", !strings.Contains(strings.Join(cfg.Cmd, " "), "import")},
	}
	for _, c := range checks {
		if !c.ok {
			t.Errorf("container %s: %s is not set", name, c.what)
		}
	}
}

func TestForkBombHeldByPidsLimit(t *testing.T) {
	opts := testOptions(t)
	opts.PidsLimit = 64
	m := startManager(t, opts)
	c := caller("s-bomb")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	res, err := m.Run(ctx, c, Script{Language: LangSh, Code: "bomb() { bomb | bomb & }; bomb\nsleep 30\n", Timeout: 5 * time.Second})
	if err != nil {
		t.Fatalf("fork bomb run: %v", err)
	}
	t.Logf("fork bomb: timed out %v, exit %d, %d bytes of stderr", res.TimedOut, res.ExitCode, len(res.Stderr))
	// The container, its runner and the host survived: the next run works
	// and no process of the bomb is left.
	after := mustRun(t, m, c, LangPython, countProcs)
	if after.ExitCode != 0 || strings.TrimSpace(after.Stdout) != "0" {
		t.Fatalf("after the fork bomb:\n%s", dump(after))
	}
}

// countProcs prints how many processes other than the runner's own
// family (docker-init, the runner, this script) exist.
const countProcs = `
import os
me = os.getpid()
n = 0
for p in os.listdir("/proc"):
    if not p.isdigit() or int(p) in (1, me, os.getppid()):
        continue
    try:
        cmd = open("/proc/%s/cmdline" % p, "rb").read()
    except OSError:
        continue
    if cmd:
        n += 1
print(n)
`

func TestOOMKilled(t *testing.T) {
	m := startManager(t, testOptions(t))
	c := caller("s-oom")
	res := mustRun(t, m, c, LangPython, "b = bytearray(b'x') * (1 << 30)\nprint(len(b))\n")
	if res.ExitCode == 0 || res.Signal != 9 {
		t.Fatalf("1 GiB allocation under a 512m limit was not killed:\n%s", dump(res))
	}
	if !res.OOMKilled {
		t.Logf("killed by SIGKILL but the OOM counter was not readable: %s", dump(res))
	}
	if after := mustRun(t, m, c, LangSh, "echo alive"); after.Stdout != "alive\n" {
		t.Fatalf("the runner did not survive the OOM kill:\n%s", dump(after))
	}
}
