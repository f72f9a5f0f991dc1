package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/beamclaw/beamclaw-go/internal/beamclaw"
	"github.com/beamclaw/beamclaw-go/internal/skill"
)

func TestScriptSkillRoundTrip(t *testing.T) {
	dir := t.TempDir()
	code := "print('a ``` fence inside')\nfor i in range(3):\n    print(i)\n"
	path, err := SaveScriptSkill(dir, ScriptSkill{Name: "count-three", Description: "Counts: to \"three\".\nTwice.", Language: LangPython, Code: code})
	if err != nil {
		t.Fatal(err)
	}
	got, err := FindScriptSkill([]string{filepath.Join(dir, "missing"), dir}, "count-three")
	if err != nil {
		t.Fatal(err)
	}
	want := ScriptSkill{Name: "count-three", Description: `Counts: to "three". Twice.`, Language: LangPython, Code: code, Path: path}
	if d := cmp.Diff(want, got); d != "" {
		t.Fatalf("round trip (-want +got):\n%s", d)
	}
	// internal/skill discovers it like any other skill.
	data, _ := os.ReadFile(path)
	sk, err := skill.Parse(data)
	if err != nil {
		t.Fatalf("internal/skill cannot parse a saved script: %v\n%s", err, data)
	}
	if sk.Name != "count-three" || !strings.Contains(string(sk.Metadata), SkillType) {
		t.Errorf("parsed as %+v", sk)
	}
	if !strings.Contains(string(data), "\ntype: sandbox_script\n") {
		t.Errorf("front matter lacks type: sandbox_script:\n%s", data)
	}
}

func TestScriptSkillRefusals(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "notes"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "notes", "SKILL.md"), []byte("---\nname: notes\ndescription: x\n---\nbody\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		s    ScriptSkill
		kind beamclaw.Kind
	}{
		{"bad name", ScriptSkill{Name: "Bad Name", Language: LangSh, Code: "true"}, beamclaw.KindInvalid},
		{"bad language", ScriptSkill{Name: "x", Language: "ruby", Code: "true"}, beamclaw.KindInvalid},
		{"no code", ScriptSkill{Name: "x", Language: LangSh, Code: " "}, beamclaw.KindInvalid},
		{"not a script skill", ScriptSkill{Name: "notes", Language: LangSh, Code: "true"}, beamclaw.KindConflict},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := SaveScriptSkill(dir, tc.s); beamclaw.KindOf(err) != tc.kind {
				t.Fatalf("err %v, want kind %s", err, tc.kind)
			}
		})
	}
	if _, err := FindScriptSkill([]string{dir}, "notes"); beamclaw.KindOf(err) != beamclaw.KindInvalid {
		t.Errorf("a plain skill loaded as a script: %v", err)
	}
	if _, err := FindScriptSkill([]string{dir}, "nope"); beamclaw.KindOf(err) != beamclaw.KindNotFound {
		t.Errorf("missing skill: %v", err)
	}
}

func TestWriteTools(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "tools"), 0o755); err != nil {
		t.Fatal(err)
	}
	b := &box{dir: dir}
	tools := []ToolInfo{
		{Name: "b_tool", Description: "Second.\nMore.", Schema: []byte(`{"type":"object"}`)},
		{Name: "a_tool", Description: "First."},
		{Name: "../escape", Description: "Never written."},
	}
	if err := b.writeTools(tools); err != nil {
		t.Fatal(err)
	}
	read := func(p string) string {
		data, err := os.ReadFile(filepath.Join(dir, "tools", p))
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}
	if got := read("index.txt"); got != "a_tool\tFirst.\nb_tool\tSecond.\n" {
		t.Errorf("index.txt = %q", got)
	}
	if got := read("b_tool/description.txt"); got != "Second.\nMore.\n" {
		t.Errorf("description = %q", got)
	}
	if got := read("a_tool/schema.json"); got != "{\n  \"type\": \"object\"\n}\n" {
		t.Errorf("schema = %q", got)
	}
	if err := b.writeTools(tools[1:2]); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "tools", "b_tool")); !os.IsNotExist(err) {
		t.Errorf("stale tool dir kept: %v", err)
	}
}

func TestDaemonAlive(t *testing.T) {
	p := procFS{root: "/proc"}
	me := p.self()
	if !p.alive(me.String()) {
		t.Fatalf("this process %s is not alive", me)
	}
	for _, label := range []string{
		"", "garbage", me.Boot + "/0/1",
		daemonID{Boot: me.Boot, PID: me.PID, Start: me.Start + 1}.String(), // a reused pid
		daemonID{Boot: "another-boot", PID: me.PID, Start: me.Start}.String(),
	} {
		if p.alive(label) {
			t.Errorf("alive(%q) = true", label)
		}
	}
}

// A killed daemon its parent has not reaped yet (a zombie) is dead.
func TestDaemonZombieIsDead(t *testing.T) {
	root := t.TempDir()
	put := func(path, data string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(filepath.Join(root, path)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, path), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	put("sys/kernel/random/boot_id", "boot-1\n")
	stat := func(state string) string {
		return "4242 (beam claw) " + state + " 1 4242 4242 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 12 0 777 1000 10\n"
	}
	p := procFS{root: root}
	label := daemonID{Boot: "boot-1", PID: 4242, Start: 777}.String()
	put("4242/stat", stat("S"))
	if !p.alive(label) {
		t.Fatal("a sleeping daemon is not alive")
	}
	put("4242/stat", stat("Z"))
	if p.alive(label) {
		t.Error("a zombie daemon is alive")
	}
}
