package store

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// keySize is an AES-256 key.
const keySize = 32

// Sealed is a bucket whose values are encrypted at rest with AES-256-GCM
// under a key kept outside the database (a file only the owner may read),
// for secrets such as OAuth tokens: a copy of the database alone reveals
// none of them. Each value is bound to its bucket and key (the AEAD's
// additional data), so a sealed value moved to another key fails to
// open. Writes go through the group commit. The bucket is an area of its
// own (in cluster mode the cluster's, ADR-045: every node then needs the
// same key file).
type Sealed struct {
	area   *Area
	bucket []byte
	aead   cipher.AEAD
}

// NewSealed returns the sealed bucket name, creating it, with the key of
// keyFile (created with a random key, mode 0600, when missing).
func NewSealed(db *DB, name, keyFile string) (*Sealed, error) {
	key, err := LoadKey(keyFile)
	if err != nil {
		return nil, err
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, fmt.Errorf("key %s: %w", keyFile, err)
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, fmt.Errorf("key %s: %w", keyFile, err)
	}
	area, err := db.Area("sealed."+name, name)
	if err != nil {
		return nil, err
	}
	return &Sealed{area: area, bucket: []byte(name), aead: aead}, nil
}

// LoadKey reads the 32-byte key of path, creating it when missing. A key
// file that others may read or write is refused: anyone who can read it
// can read every sealed value.
func LoadKey(path string) ([]byte, error) {
	st, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return createKey(path)
	}
	if err != nil {
		return nil, fmt.Errorf("key file: %w", err)
	}
	if st.Mode().Perm()&0o077 != 0 {
		return nil, fmt.Errorf("key file %s is mode %o: others may read it (chmod 600 %s)", path, st.Mode().Perm(), path)
	}
	key, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("key file: %w", err)
	}
	if len(key) != keySize {
		return nil, fmt.Errorf("key file %s holds %d bytes, not %d: it is damaged (move it aside; stored logins are then lost)", path, len(key), keySize)
	}
	return key, nil
}

func createKey(path string) ([]byte, error) {
	key := make([]byte, keySize)
	if _, err := rand.Read(key); err != nil {
		return nil, fmt.Errorf("key file: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("key file: %w", err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return LoadKey(path) // another process made it first
	}
	if err != nil {
		return nil, fmt.Errorf("key file: %w", err)
	}
	if _, err := f.Write(key); err != nil {
		f.Close()
		return nil, fmt.Errorf("key file: %w", err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return nil, fmt.Errorf("key file: %w", err)
	}
	if err := f.Close(); err != nil {
		return nil, fmt.Errorf("key file: %w", err)
	}
	return key, nil
}

func (s *Sealed) aad(key string) []byte {
	return append(append(append([]byte{}, s.bucket...), 0), key...)
}

// Get returns the opened value of key and whether it exists.
func (s *Sealed) Get(key string) ([]byte, bool, error) {
	var sealed []byte
	err := s.area.View(func(tx *Tx) error {
		if b := tx.Bucket(s.bucket).Get([]byte(key)); b != nil {
			sealed = append([]byte{}, b...)
		}
		return nil
	})
	if err != nil {
		return nil, false, fmt.Errorf("read %s/%s: %w", s.bucket, key, err)
	}
	if sealed == nil {
		return nil, false, nil
	}
	n := s.aead.NonceSize()
	if len(sealed) < n {
		return nil, false, fmt.Errorf("read %s/%s: sealed value too short", s.bucket, key)
	}
	plain, err := s.aead.Open(nil, sealed[:n], sealed[n:], s.aad(key))
	if err != nil {
		return nil, false, fmt.Errorf("read %s/%s: cannot open it with this key (was the key file replaced?): %w", s.bucket, key, err)
	}
	return plain, true, nil
}

// Put seals value under key and returns once it is on disk.
func (s *Sealed) Put(key string, value []byte) error {
	nonce := make([]byte, s.aead.NonceSize(), s.aead.NonceSize()+len(value)+s.aead.Overhead())
	if _, err := rand.Read(nonce); err != nil {
		return fmt.Errorf("seal %s/%s: %w", s.bucket, key, err)
	}
	sealed := s.aead.Seal(nonce, nonce, value, s.aad(key))
	return s.area.Update(func(tx *Tx) error {
		return tx.Bucket(s.bucket).Put([]byte(key), sealed)
	})
}

// Delete removes key.
func (s *Sealed) Delete(key string) error {
	return s.area.Update(func(tx *Tx) error {
		return tx.Bucket(s.bucket).Delete([]byte(key))
	})
}
