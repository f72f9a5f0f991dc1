//go:build linux

package procguard

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/beamclaw/beamclaw-go/test/testenv"
)

// The test binary is also the namespace init, as beamclaw's main is.
func TestMain(m *testing.M) {
	InitIfAsked()
	goleak.VerifyTestMain(m)
}

// requireNamespaces fails (or, outside CI, says loudly why not) when the
// host refuses user namespaces: then nothing here can be shown.
func requireNamespaces(t *testing.T, iso *Isolator) {
	t.Helper()
	if in := iso.Probe(); !in.Namespaces {
		testenv.Unavailable(t, "user namespaces (tool isolation not tested here): "+in.Err.Error(), Fix)
	}
}

// A victim holding a secret in its environment (an MCP server with its
// token), of the same user: a tool process reads it unless isolated.
func startVictim(t *testing.T, secret string) {
	t.Helper()
	v := exec.Command("sleep", "4242.5")
	v.Env = []string{"FX_TOKEN=" + secret}
	if err := v.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = v.Process.Kill(); _ = v.Wait() })
}

// loot reads every environment it can see.
const loot = `cat /proc/[0-9]*/environ 2>/dev/null | tr '\0' '\n' | grep -c FX_TOKEN; ls /proc | grep -c '^[0-9]'`

// unmountThenLoot first tries to take the private /proc away (as root in
// its namespace it could, and see the host's): only ever run wrapped.
const unmountThenLoot = `umount -l /proc 2>/dev/null; umount /proc 2>/dev/null; ` + loot

func TestIsolatedToolSeesNoOtherProcess(t *testing.T) {
	iso := NewIsolator()
	requireNamespaces(t, iso)
	startVictim(t, "fx-secret-value")
	plain := exec.Command("sh", "-c", loot)
	out, _ := plain.Output()
	if f := strings.Fields(string(out)); len(f) != 2 || f[0] == "0" {
		t.Fatalf("the victim's token is not readable even without isolation (%q): the test proves nothing", out)
	}
	wrapped := exec.Command("sh", "-c", unmountThenLoot)
	iso.Wrap(wrapped)
	out, err := wrapped.Output()
	if err != nil {
		t.Fatalf("isolated: %v (%s)", err, out)
	}
	f := strings.Fields(string(out))
	if n, err := strconv.Atoi(f[len(f)-1]); len(f) != 2 || f[0] != "0" || err != nil || n > 4 {
		t.Fatalf("an isolated tool process read the token or sees other processes: tokens, processes = %q", out)
	}
}

func TestIsolatedToolsProcessesEndWithIt(t *testing.T) {
	iso := NewIsolator()
	requireNamespaces(t, iso)
	cmd := exec.Command("sh", "-c", "setsid sleep 4343.5 >/dev/null 2>&1 &\n(sleep 4343.5 >/dev/null 2>&1 &)\necho started")
	iso.Wrap(cmd)
	out, err := cmd.Output()
	if err != nil || strings.TrimSpace(string(out)) != "started" {
		t.Fatalf("%v %q", err, out)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		n := 0
		entries, _ := os.ReadDir("/proc")
		for _, e := range entries {
			b, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
			if strings.HasPrefix(string(b), "sleep\x004343.5") {
				n++
			}
		}
		if n == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d detached processes outlived the isolated tool process", n)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// The recommended setup is an unprivileged daemon: as root, the tests
// above run again as nobody (a copy of this binary it may execute).
func TestIsolationAsAnUnprivilegedUser(t *testing.T) {
	if os.Getuid() != 0 {
		return // the tests above ran as this user
	}
	dir := t.TempDir()
	for _, d := range []string{dir, filepath.Dir(dir)} {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "procguard.test")
	copyFile(t, self, bin)
	cmd := exec.Command(bin, "-test.run", "^(TestIsolatedToolSeesNoOtherProcess|TestIsolatedToolsProcessesEndWithIt)$", "-test.v", "-test.count=1")
	cmd.Dir = dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS: TestIsolatedToolSeesNoOtherProcess") {
		t.Fatalf("as nobody: %v\n%s", err, out)
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	in, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}
