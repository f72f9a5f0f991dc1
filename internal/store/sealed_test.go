package store

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSealedKeepsValuesEncrypted(t *testing.T) {
	db := mustOpen(t)
	keyFile := filepath.Join(t.TempDir(), "secrets.key")
	s, err := NewSealed(db, "tokens", keyFile)
	if err != nil {
		t.Fatal(err)
	}
	canary := []byte("CANARY-token-0123456789")
	if err := s.Put("web", canary); err != nil {
		t.Fatal(err)
	}
	got, ok, err := s.Get("web")
	if err != nil || !ok || !bytes.Equal(got, canary) {
		t.Fatalf("Get = %q %v %v", got, ok, err)
	}
	if st, err := os.Stat(keyFile); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("key file: %v, mode %v", err, st.Mode())
	}
	path := db.Path()
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(raw, []byte("CANARY")) {
		t.Fatal("the sealed value is in the database file in the clear")
	}

	db2, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db2.Close()
	s2, err := NewSealed(db2, "tokens", keyFile)
	if err != nil {
		t.Fatal(err)
	}
	if got, ok, err := s2.Get("web"); err != nil || !ok || !bytes.Equal(got, canary) {
		t.Fatalf("after reopen: %q %v %v", got, ok, err)
	}
	other, err := NewSealed(db2, "tokens", filepath.Join(t.TempDir(), "other.key"))
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := other.Get("web"); err == nil || !strings.Contains(err.Error(), "cannot open") {
		t.Errorf("opened with another key: %v", err)
	}
	if err := s2.Delete("web"); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := s2.Get("web"); ok {
		t.Error("deleted value still there")
	}
}

func TestLoadKeyRefusesAReadableKey(t *testing.T) {
	keyFile := filepath.Join(t.TempDir(), "secrets.key")
	if _, err := LoadKey(keyFile); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(keyFile, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadKey(keyFile); err == nil || !strings.Contains(err.Error(), "chmod 600") {
		t.Errorf("LoadKey of a 0644 key = %v", err)
	}
}
