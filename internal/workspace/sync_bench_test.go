package workspace

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// peopleTree lays out users persons' memory (ID, USER.md, MEMORY.md and
// one daily log each, ~2 KiB in all) under a new people directory, and
// returns the Store and its tree as a cluster node would share them.
func peopleTree(b *testing.B, users int) (*Store, *tree) {
	b.Helper()
	s := New(filepath.Join(b.TempDir(), "agents"), nil)
	for i := range users {
		dir := filepath.Join(s.people, "main", fmt.Sprintf("user-%05d", i))
		if err := os.MkdirAll(filepath.Join(dir, DailyDir), 0o700); err != nil {
			b.Fatal(err)
		}
		files := map[string]string{userIDFile: fmt.Sprintf("tg:%d\n", i), FileUser: "likes tea\n",
			FileMemory: string(make([]byte, 1500)), filepath.Join(DailyDir, "2026-11-27.md"): "## 09:00\n\nsaid hello\n"}
		for name, text := range files {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o600); err != nil {
				b.Fatal(err)
			}
		}
	}
	t := &tree{dir: s.people, depth: 2, keep: personFile, base: map[string][32]byte{}, stats: map[string]fileStat{}}
	s.mu.Lock()
	if err := s.restat(t, ""); err != nil {
		b.Fatal(err)
	}
	s.mu.Unlock()
	return s, t
}

// BenchmarkIdleSync is what a cluster node spends every syncEvery on a
// shared directory nobody changed: a stat of each shared file.
func BenchmarkIdleSync(b *testing.B) {
	for _, users := range []int{100, 1000} {
		b.Run(fmt.Sprintf("users=%d", users), func(b *testing.B) {
			s, t := peopleTree(b, users)
			b.ReportAllocs()
			for b.Loop() {
				if s.touched(t) {
					b.Fatal("nothing was touched")
				}
			}
		})
	}
}

// BenchmarkFullRead is a sync's read of the shared files (after another
// node's change, or a touched file): every file whole.
func BenchmarkFullRead(b *testing.B) {
	s, t := peopleTree(b, 1000)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.files(t, ""); err != nil {
			b.Fatal(err)
		}
	}
}
