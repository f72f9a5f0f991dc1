package sandbox

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
)

// toolFileName keeps tool directories safe path components.
var toolFileName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$`) })

// writeTools makes the box's /tools match tools (already filtered by the
// policy): index.txt with one "name<TAB>first line of description" per
// tool, and <name>/description.txt and <name>/schema.json. Nothing is
// written when the set is unchanged; files are replaced by rename, so a
// running script never reads half a file.
func (b *box) writeTools(tools []ToolInfo) error {
	tools = append([]ToolInfo(nil), tools...)
	sort.Slice(tools, func(i, j int) bool { return tools[i].Name < tools[j].Name })
	var keep []ToolInfo
	var parts []string
	for _, t := range tools {
		if !toolFileName().MatchString(t.Name) || strings.Contains(t.Name, "..") {
			continue
		}
		keep = append(keep, t)
		parts = append(parts, t.Name, t.Description, t.Source, string(t.Schema))
	}
	sum := hashStrings(parts...)
	b.toolsMu.Lock()
	defer b.toolsMu.Unlock()
	if sum == b.toolsHash {
		return nil
	}
	root := filepath.Join(b.dir, "tools")
	names := map[string]bool{}
	var index strings.Builder
	for _, t := range keep {
		names[t.Name] = true
		dir := filepath.Join(root, t.Name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("tools dir: %w", err)
		}
		desc := strings.TrimSpace(t.Description)
		if err := writeAtomic(filepath.Join(dir, "description.txt"), []byte(desc+"\n")); err != nil {
			return err
		}
		if err := writeAtomic(filepath.Join(dir, "schema.json"), prettySchema(t.Schema)); err != nil {
			return err
		}
		first, _, _ := strings.Cut(desc, "\n")
		fmt.Fprintf(&index, "%s\t%s\n", t.Name, first)
	}
	if err := writeAtomic(filepath.Join(root, "index.txt"), []byte(index.String())); err != nil {
		return err
	}
	entries, err := os.ReadDir(root)
	if err != nil {
		return fmt.Errorf("read tools dir: %w", err)
	}
	for _, e := range entries {
		if e.IsDir() && !names[e.Name()] {
			if err := os.RemoveAll(filepath.Join(root, e.Name())); err != nil {
				return fmt.Errorf("remove stale tool dir: %w", err)
			}
		}
	}
	b.toolsHash = sum
	return nil
}

func prettySchema(raw json.RawMessage) []byte {
	if len(raw) == 0 {
		raw = json.RawMessage(`{"type":"object"}`)
	}
	var buf bytes.Buffer
	if err := json.Indent(&buf, raw, "", "  "); err != nil {
		return append(raw, '\n')
	}
	buf.WriteByte('\n')
	return buf.Bytes()
}

// writeAtomic writes data to path (mode 0644) through a rename.
func writeAtomic(path string, data []byte) error {
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return fmt.Errorf("write %s: %w", filepath.Base(path), err)
	}
	if err := os.Chmod(tmp, 0o644); err != nil { // umask
		return fmt.Errorf("chmod %s: %w", filepath.Base(path), err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("rename %s: %w", filepath.Base(path), err)
	}
	return nil
}
