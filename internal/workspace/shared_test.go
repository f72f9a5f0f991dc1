package workspace

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/beamclaw/beamclaw-go/internal/store"
	"github.com/beamclaw/beamclaw-go/internal/store/replicatest"
)

// TestPeoplesMemoryIsTheClusters: in cluster mode a person's memory
// written on one node is read on another; two nodes appending to one
// daily log at once lose no entry; forgetting the person on one node
// forgets them on every node.
func TestPeoplesMemoryIsTheClusters(t *testing.T) {
	_, dbs := replicatest.Stores(t, 3, 3)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stores []*Store
	for _, db := range dbs {
		s := New(filepath.Join(t.TempDir(), "agents"), nil)
		if err := s.Create("ana"); err != nil {
			t.Fatal(err)
		}
		if err := s.Share(ctx, db, "", nil); err != nil {
			t.Fatal(err)
		}
		stores = append(stores, s)
	}
	if err := stores[0].WriteUserFile("ana", "tg:42", FileMemory, "erin likes tea\n"); err != nil {
		t.Fatal(err)
	}
	replicatest.Within(t, "erin's memory on the third node", func() bool {
		text, _ := stores[2].ReadUserFile("ana", "tg:42", FileMemory)
		return text == "erin likes tea\n"
	})
	appendAtOnce(t, stores[:2], "ana", "tg:42")
	replicatest.Within(t, "every note on the third node", func() bool {
		text, _ := stores[2].ReadDaily("ana", "tg:42", "2026-11-27")
		return strings.Count(text, "note ") == 10
	})
	if had, err := stores[1].ForgetUser("ana", "tg:42"); err != nil || !had {
		t.Fatalf("forget: %v %v", had, err)
	}
	replicatest.Within(t, "erin forgotten on the first node", func() bool {
		text, _ := stores[0].ReadUserFile("ana", "tg:42", FileMemory)
		return text == ""
	})
}

// TestAgentsAreTheClusters: in cluster mode an agent made on one node is
// on every node; its files written on one are read on another (a node
// that had its own copy of the agent takes the cluster's); two nodes
// appending to its shared daily log lose no entry; finishing its first
// run and deleting it reach every node.
func TestAgentsAreTheClusters(t *testing.T) {
	nodes, dbs := replicatest.Stores(t, 3, 3)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stores []*Store
	var skills []string // each node's skills every agent has
	for i, db := range dbs {
		home := t.TempDir()
		s := New(filepath.Join(home, "agents"), nil)
		if err := s.Ensure("main"); err != nil { // each node's default agent, before it joins
			t.Fatal(err)
		}
		if err := s.WriteFile("main", FileSoul, fmt.Sprintf("soul of n%d\n", i+1)); err != nil {
			t.Fatal(err)
		}
		skills = append(skills, filepath.Join(home, "skills"))
		if err := s.Share(ctx, db, skills[i], nil); err != nil {
			t.Fatal(err)
		}
		stores = append(stores, s)
	}
	if err := stores[0].Create("bo"); err != nil {
		t.Fatal(err)
	}
	replicatest.Within(t, "bo on the third node", func() bool {
		ok, _ := stores[2].Exists("bo")
		return ok
	})
	if err := stores[1].WriteFile("bo", FileSoul, "calm and brief\n"); err != nil {
		t.Fatal(err)
	}
	replicatest.Within(t, "bo's soul on the first node, the nodes' main alike", func() bool {
		text, _ := stores[0].ReadFile("bo", FileSoul)
		m0, _ := stores[0].ReadFile("main", FileSoul)
		m2, _ := stores[2].ReadFile("main", FileSoul)
		return text == "calm and brief\n" && m0 == m2 && strings.HasPrefix(m0, "soul of n")
	})
	appendAtOnce(t, stores[:2], "bo", "")
	replicatest.Within(t, "every note of bo's log on the third node", func() bool {
		text, _ := stores[2].ReadDaily("bo", "", "2026-11-27")
		return strings.Count(text, "note ") == 10
	})
	if err := stores[2].CompleteBootstrap("bo"); err != nil {
		t.Fatal(err)
	}
	replicatest.Within(t, "bo's first run done on the first node", func() bool {
		a, err := stores[0].Get("bo")
		return err == nil && !a.BootstrapPending
	})
	// Skills written beside the Store (by hand, or the sandbox saving a
	// script): bo's own on n2, one of every agent on n1.
	own := filepath.Join(stores[1].AgentsDir(), "bo", "skills", "tidy", "SKILL.md")
	global := filepath.Join(skills[0], "greet", "SKILL.md")
	for _, p := range []string{own, global} {
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("---\nname: "+filepath.Base(filepath.Dir(p))+"\n---\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	replicatest.Within(t, "both skills on n3", func() bool {
		_, err1 := os.Stat(filepath.Join(stores[2].AgentsDir(), "bo", "skills", "tidy", "SKILL.md"))
		_, err2 := os.Stat(filepath.Join(skills[2], "greet", "SKILL.md"))
		return err1 == nil && err2 == nil
	})
	// A node that joins later with its own new main (still to be
	// bootstrapped) takes the cluster's main, whose first run is done.
	if err := stores[0].CompleteBootstrap("main"); err != nil {
		t.Fatal(err)
	}
	late := New(filepath.Join(t.TempDir(), "agents"), nil)
	if err := late.Ensure("main"); err != nil {
		t.Fatal(err)
	}
	if err := late.Share(ctx, replicatest.Open(t, nodes[2], "late.db"), "", nil); err != nil { // a home of its own
		t.Fatal(err)
	}
	replicatest.Within(t, "the late node's main is the cluster's", func() bool {
		a, err := late.Get("main")
		return err == nil && !a.BootstrapPending && late.sharedAgents.ready()
	})
	if a, err := stores[2].Get("main"); err != nil || a.BootstrapPending {
		t.Fatalf("the cluster's main took the late node's BOOTSTRAP.md: %+v %v", a, err)
	}
	// By hand and offline: bo's SOUL.md edited on n1's disk, and an agent
	// made by `beamclaw agent create` on n2 (a Store of its own on the
	// same directory), both while the nodes run.
	if err := os.WriteFile(filepath.Join(stores[0].AgentsDir(), "bo", FileSoul), []byte("edited by hand\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := New(stores[1].AgentsDir(), nil).Create("cy"); err != nil {
		t.Fatal(err)
	}
	replicatest.Within(t, "the hand's edit and the offline agent on n3", func() bool {
		text, _ := stores[2].ReadFile("bo", FileSoul)
		ok, _ := stores[2].Exists("cy")
		return text == "edited by hand\n" && ok
	})
	if err := stores[1].Delete("bo"); err != nil {
		t.Fatal(err)
	}
	replicatest.Within(t, "bo gone from the first node", func() bool {
		ok, err := stores[0].Exists("bo")
		return err == nil && !ok
	})
}

// appendAtOnce has each store append five notes to one daily log of the
// agent (the user's own; user "": the agent's) at the same time.
func appendAtOnce(t *testing.T, stores []*Store, agent, user string) {
	t.Helper()
	var wg sync.WaitGroup
	for i, s := range stores {
		wg.Go(func() {
			for k := range 5 {
				if err := s.AppendDaily(agent, user, "2026-11-27", fmt.Sprintf("note %d from n%d", k, i+1)); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
}

// TestSharedFilesAreGuarded: what another node's records name is checked
// before it reaches the disk, and does not block a change; a node's own
// daily logs of an agent the cluster has join it at its first sync; a
// person is forgotten on every node even through one that never had
// them; a shared directory gone from disk is not every file deleted.
func TestSharedFilesAreGuarded(t *testing.T) {
	_, dbs := replicatest.Stores(t, 2, 2)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	a := New(filepath.Join(t.TempDir(), "agents"), nil)
	if err := a.Ensure("main"); err != nil {
		t.Fatal(err)
	}
	if err := a.Share(ctx, dbs[0], "", nil); err != nil {
		t.Fatal(err)
	}
	replicatest.Within(t, "a's first sync", func() bool { return a.sharedAgents.ready() })
	area, err := dbs[0].Area("agent_files", "agent_files")
	if err != nil {
		t.Fatal(err)
	}
	if err := area.Update(func(tx *store.Tx) error { // records no Store writes
		b := tx.Bucket([]byte("agent_files"))
		return errors.Join(b.Put([]byte("main/../evil/SOUL.md"), []byte("x")), b.Put([]byte("main/notes/evil.txt"), []byte("x")),
			b.Put([]byte("main/skills/half/SKILL.md.tmp"), []byte("x")), b.Put([]byte("main/skills/.hidden/SKILL.md"), []byte("x")))
	}); err != nil {
		t.Fatal(err)
	}

	b := New(filepath.Join(t.TempDir(), "agents"), nil)
	if err := b.Ensure("main"); err != nil {
		t.Fatal(err)
	}
	if err := b.AppendDaily("main", "", "2026-11-01", "b's own day"); err != nil {
		t.Fatal(err)
	}
	if err := b.Share(ctx, dbs[1], "", nil); err != nil {
		t.Fatal(err)
	}
	replicatest.Within(t, "b's own log of main on a", func() bool {
		text, _ := a.ReadDaily("main", "", "2026-11-01")
		return strings.Contains(text, "b's own day")
	})
	if err := b.WriteFile("main", FileSoul, "from b\n"); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"evil/SOUL.md", "main/notes/evil.txt", "main/skills/half/SKILL.md.tmp", "main/skills/.hidden/SKILL.md"} {
		if _, err := os.Stat(filepath.Join(b.AgentsDir(), p)); err == nil {
			t.Errorf("%s written from a record", p)
		}
	}
	replicatest.Within(t, "b's soul on a", func() bool {
		text, _ := a.ReadFile("main", FileSoul)
		return text == "from b\n"
	})
	// A file over MaxFileSize beside a skill (written by hand) stays
	// b's; the skill's SKILL.md is shared all the same.
	skill := filepath.Join(b.AgentsDir(), "main", "skills", "big")
	if err := os.MkdirAll(skill, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(skill, "data.bin"), make([]byte, MaxFileSize+1), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(skill, "SKILL.md"), []byte("---\nname: big\n---\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	replicatest.Within(t, "the big skill's SKILL.md on a", func() bool {
		_, err := os.Stat(filepath.Join(a.AgentsDir(), "main", "skills", "big", "SKILL.md"))
		return err == nil
	})
	if _, err := os.Stat(filepath.Join(a.AgentsDir(), "main", "skills", "big", "data.bin")); err == nil {
		t.Error("a file over MaxFileSize was shared")
	}

	if err := a.WriteUserFile("main", "tg:7", FileMemory, "likes jazz\n"); err != nil {
		t.Fatal(err)
	}
	if had, err := b.ForgetUser("main", "tg:7"); err != nil || !had {
		t.Fatalf("forget through b: %v %v", had, err)
	}
	replicatest.Within(t, "tg:7 forgotten on a", func() bool {
		text, _ := a.ReadUserFile("main", "tg:7", FileMemory)
		return text == ""
	})

	// One file changed by hand on a and through b at once: the cluster's
	// copy (b's) is every node's.
	if err := os.WriteFile(filepath.Join(a.AgentsDir(), "main", FileTools), []byte("by hand on a\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := b.WriteFile("main", FileTools, "through b\n"); err != nil {
		t.Fatal(err)
	}
	replicatest.Within(t, "b's TOOLS.md on a and b", func() bool {
		ta, _ := a.ReadFile("main", FileTools)
		tb, _ := b.ReadFile("main", FileTools)
		return ta == "through b\n" && tb == "through b\n"
	})

	if err := os.Rename(a.AgentsDir(), a.AgentsDir()+".aside"); err != nil {
		t.Fatal(err)
	}
	for name, sync := range map[string]func(*tree) error{"full": func(t *tree) error { return a.sync(t, "") }, "area": a.syncArea} {
		a.mu.Lock()
		err = sync(a.sharedAgents)
		a.mu.Unlock()
		if err == nil || !strings.Contains(err.Error(), "missing") {
			t.Fatalf("a %s sync with the agents directory gone: %v", name, err)
		}
	}
	if err := area.View(func(tx *store.Tx) error {
		if tx.Bucket([]byte("agent_files")).Get([]byte("main/"+FileSoul)) == nil {
			return errors.New("main's SOUL.md gone from the cluster")
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}

// TestAgreementOutlivesARestart: what a node last agreed on with the
// cluster is kept in its database, so a file edited by hand while its
// daemon was stopped is pushed when it starts again, and an agent deleted
// on another node meanwhile goes here too rather than coming back; but
// files gone from its disk (a directory emptied, a new volume) are not
// taken for deletions: the cluster's copy comes back.
func TestAgreementOutlivesARestart(t *testing.T) {
	_, dbs := replicatest.Stores(t, 3, 3)
	dir := filepath.Join(t.TempDir(), "agents")
	a, b := New(dir, nil), New(filepath.Join(t.TempDir(), "agents"), nil)
	actx, stopA := context.WithCancel(context.Background())
	defer stopA()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	for i, s := range []*Store{a, b} {
		c := ctx
		if s == a {
			c = actx
		}
		if err := s.Share(c, dbs[i], "", nil); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{"bo", "cy", "dee"} {
		if err := a.Create(name); err != nil {
			t.Fatal(err)
		}
	}
	if err := a.WriteFile("bo", FileSoul, "first\n"); err != nil {
		t.Fatal(err)
	}
	replicatest.Within(t, "bo and cy on the second node", func() bool {
		soul, _ := b.ReadFile("bo", FileSoul)
		ok, _ := b.Exists("cy")
		return soul == "first\n" && ok
	})
	stopA()     // the first node's daemon stops
	a.mu.Lock() // a sync under way has ended: the node is stopped
	_ = a.sharedAgents.ready()
	a.mu.Unlock()
	if err := os.WriteFile(filepath.Join(dir, "bo", FileSoul), []byte("edited while stopped\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := b.Delete("cy"); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(filepath.Join(dir, "dee")); err != nil {
		t.Fatal(err)
	}
	restarted := New(dir, nil)
	if err := restarted.Share(ctx, dbs[0], "", nil); err != nil {
		t.Fatal(err)
	}
	replicatest.Within(t, "the edit made while stopped on the second node, cy gone from the first", func() bool {
		soul, _ := b.ReadFile("bo", FileSoul)
		ok, err := restarted.Exists("cy")
		return soul == "edited while stopped\n" && err == nil && !ok
	})
	if ok, _ := b.Exists("cy"); ok {
		t.Error("cy, deleted on the second node, came back from the first")
	}
	replicatest.Within(t, "dee back on the first node's disk", func() bool {
		ok, err := restarted.Exists("dee")
		return err == nil && ok
	})
	if ok, _ := b.Exists("dee"); !ok {
		t.Error("dee, gone from the first node's disk while it was stopped, was deleted everywhere")
	}
}
