package e2e

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/beamclaw/beamclaw-go/test/testenv"
)

// requireDocker skips loudly without a Docker engine, and fails under CI.
func requireDocker(t *testing.T) {
	t.Helper()
	out, err := exec.Command("docker", "info", "--format", "{{.ServerVersion}}").CombinedOutput()
	if err == nil {
		return
	}
	testenv.Unavailable(t, fmt.Sprintf("Docker's engine (%v: %s)", err, strings.TrimSpace(string(out))),
		"apt-get install docker.io; start dockerd")
}

func docker(t *testing.T, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, "docker", args...).CombinedOutput()
	if err != nil {
		t.Fatalf("docker %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// dataDir makes a state directory the image's unprivileged user can write.
func dataDir(t *testing.T, config string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "config.yaml"), []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{dir, filepath.Join(dir, "config.yaml")} {
		if err := os.Chown(p, 65532, 65532); err != nil {
			t.Skipf("cannot hand the data dir to uid 65532 (not root?): %v", err)
		}
	}
	return dir
}

func TestDockerImage(t *testing.T) {
	requireDocker(t)
	tag := fmt.Sprintf("beamclaw:e2e-%d", os.Getpid())
	build := exec.Command("../../scripts/docker-image.sh", tag)
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build image: %v\n%s", err, out)
	}
	t.Cleanup(func() { _ = exec.Command("docker", "rmi", "-f", tag).Run() })

	token := strings.Repeat("d0ck3r", 6)
	cfg := "gateway:\n  http:\n    addr: \"0.0.0.0:18800\"\n  auth:\n    token: {env: BEAMCLAW_GATEWAY_TOKEN}\n"
	dir := dataDir(t, cfg)
	name := fmt.Sprintf("beamclaw-e2e-%d", os.Getpid())
	docker(t, "run", "-d", "--name", name, "-p", "127.0.0.1::18800", "-v", dir+":/data",
		"-e", "BEAMCLAW_GATEWAY_TOKEN="+token, tag)
	t.Cleanup(func() { _ = exec.Command("docker", "rm", "-f", name).Run() })
	addr := docker(t, "port", name, "18800/tcp")
	addr = strings.Split(addr, "\n")[0]

	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := http.Get("http://" + addr + "/health")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("container not healthy: %v\n%s", err, docker(t, "logs", name))
		}
		time.Sleep(50 * time.Millisecond)
	}
	resp, err := http.Get("http://" + addr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("/metrics without token: %d, want 401", resp.StatusCode)
	}
	http.DefaultClient.CloseIdleConnections()
	if _, err := os.Stat(filepath.Join(dir, "beamclaw.db")); err != nil {
		t.Errorf("state not in the mounted volume: %v", err)
	}

	// Without the token's variable the daemon refuses to listen on 0.0.0.0.
	bare := name + "-notoken"
	dir2 := dataDir(t, cfg)
	run := exec.Command("docker", "run", "--name", bare, "-v", dir2+":/data", tag)
	out, err := run.CombinedOutput()
	_ = exec.Command("docker", "rm", "-f", bare).Run()
	if err == nil {
		t.Fatalf("container started without a token:\n%s", out)
	}
	if !strings.Contains(string(out), "gateway.auth.token") {
		t.Errorf("refusal does not say why:\n%s", out)
	}
}
