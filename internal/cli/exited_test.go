package cli

import (
	"os"
	"os/exec"
	"testing"
	"time"
)

func TestExited(t *testing.T) {
	if exited(os.Getpid()) {
		t.Error("a live process counted as exited")
	}
	// A child that ended but is not reaped yet is a zombie: exited.
	cmd := exec.Command("true")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pid := cmd.Process.Pid
	deadline := time.Now().Add(10 * time.Second)
	for !exited(pid) {
		if time.Now().After(deadline) {
			t.Fatal("an ended, unreaped child was not counted as exited")
		}
		time.Sleep(time.Millisecond)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	if !exited(pid) {
		t.Error("a reaped child was not counted as exited")
	}
}
