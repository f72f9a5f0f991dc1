package skill

import (
	"crypto/sha256"
	"sync"
)

// maxCached bounds a Cache; past it the cache starts over.
const maxCached = 1024

// Cache remembers parsed and scanned SKILL.md files by content, so that a
// discovery on every agent turn costs a directory listing and a few small
// reads rather than a YAML parse and a regexp scan per skill. An edited
// file has new content and is parsed again. Safe for concurrent use; a nil
// *Cache parses every time.
type Cache struct {
	mu     sync.Mutex
	parsed map[[32]byte]parsed
	scans  map[[32]byte][]string
}

type parsed struct {
	skill Skill
	err   error
}

// NewCache returns an empty cache.
func NewCache() *Cache {
	return &Cache{parsed: map[[32]byte]parsed{}, scans: map[[32]byte][]string{}}
}

// Discover is Discover, with parsing and scanning remembered.
func (c *Cache) Discover(opts Options) (Catalog, error) { return discover(opts, c) }

func (c *Cache) parse(data []byte) (Skill, error) {
	if c == nil {
		return Parse(data)
	}
	key := sha256.Sum256(data)
	c.mu.Lock()
	p, ok := c.parsed[key]
	c.mu.Unlock()
	if ok {
		return p.skill, p.err
	}
	s, err := Parse(data)
	c.mu.Lock()
	if len(c.parsed) >= maxCached {
		clear(c.parsed)
	}
	c.parsed[key] = parsed{s, err}
	c.mu.Unlock()
	return s, err
}

func (c *Cache) scan(content string) []string {
	if c == nil {
		return Scan(content)
	}
	key := sha256.Sum256([]byte(content))
	c.mu.Lock()
	flags, ok := c.scans[key]
	c.mu.Unlock()
	if ok {
		return flags
	}
	flags = Scan(content)
	c.mu.Lock()
	if len(c.scans) >= maxCached {
		clear(c.scans)
	}
	c.scans[key] = flags
	c.mu.Unlock()
	return flags
}
