package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/beamclaw/beamclaw-go/internal/store/storetest"
	"github.com/beamclaw/beamclaw-go/test/fakellm"
)

// TestDamagedDatabaseRefused: each kind of damage makes start exit 1
// with a line naming the fix, and leaves the file as it was; db check
// says the same.
func TestDamagedDatabaseRefused(t *testing.T) {
	for _, d := range storetest.Damages {
		t.Run(d.Name, func(t *testing.T) {
			r := newChatRig(t, rigOptions{})
			r.llm.SetDefault(fakellm.Rules)
			r.start()
			for i := range 20 {
				r.chat(fmt.Sprint("user-", i), strings.Repeat("a long enough message to fill pages ", 20))
			}
			r.h.must("stop")
			db := filepath.Join(r.h.dir, "beamclaw.db")
			d.Apply(t, db)
			before := storetest.Digest(t, db)
			res := r.h.run("start")
			if res.code != 1 {
				t.Fatalf("start on a damaged database: exit %d\n%s%s", res.code, res.stdout, res.stderr)
			}
			if !strings.Contains(res.stderr, "damaged") || !strings.Contains(res.stderr, "restore a backup") {
				t.Errorf("start does not say what is wrong and how to fix it: %s", res.stderr)
			}
			check := r.h.run("db", "check")
			if check.code != 1 || !strings.Contains(check.stderr+check.stdout, "damaged") {
				t.Errorf("db check: exit %d %s%s", check.code, check.stdout, check.stderr)
			}
			if after := storetest.Digest(t, db); after != before {
				t.Error("the damaged file was changed")
			}
		})
	}
}

// TestDatabaseBackupWhileWriting: a backup taken while 16 clients write
// is a whole database, which restores and serves.
func TestDatabaseBackupWhileWriting(t *testing.T) {
	r := newChatRig(t, rigOptions{gateway: "  rate_limit: {enabled: false}\n"})
	r.llm.SetDefault(fakellm.Rules)
	r.start()
	r.chat("keeper", "remember this turn")
	backup := filepath.Join(t.TempDir(), "backup.db")
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for c := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				if code, body := r.post(fmt.Sprintf("writer-%d", c), fmt.Sprint("turn ", i)); code != 200 {
					t.Errorf("writer %d: %d %s", c, code, body)
					return
				}
			}
		}()
	}
	res := r.h.run("db", "backup", backup)
	close(stop)
	wg.Wait()
	if res.code != 0 || !strings.Contains(res.stdout, "backed up") {
		t.Fatalf("db backup: exit %d %s%s", res.code, res.stdout, res.stderr)
	}
	r.h.must("stop")
	data, err := os.ReadFile(backup)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(r.h.dir, "beamclaw.db"), data, 0o600); err != nil {
		t.Fatal(err)
	}
	if res := r.h.must("db", "check"); !strings.Contains(res.stdout, "every page checks out") {
		t.Errorf("db check of the restored file: %s", res.stdout)
	}
	r.start()
	before := len(r.llm.Requests())
	r.chat("keeper", "and now?")
	conv := llmConversation(r.llm.Requests()[before])
	if !strings.Contains(strings.Join(conv, "\n"), "remember this turn") {
		t.Errorf("the restored database lost the keeper's history: %q", conv)
	}
}
