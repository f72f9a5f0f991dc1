package store

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	bolt "go.etcd.io/bbolt"

	"github.com/beamclaw/beamclaw-go/test/leak"
)

func TestMain(m *testing.M) {
	if path := os.Getenv("STORE_TEST_HOLD"); path != "" {
		holdOpen(path)
		return
	}
	leak.VerifyTestMain(m)
}

// holdOpen is the second process of TestLockTimeout: it opens the store,
// says so, and keeps it open until its stdin closes.
func holdOpen(path string) {
	db, err := Open(path, Options{})
	if err != nil {
		fmt.Println("error:", err)
		os.Exit(1)
	}
	fmt.Println("open")
	_, _ = bufio.NewReader(os.Stdin).ReadString('\n')
	_ = db.Close()
}

type record struct {
	Name  string `json:"name"`
	Count int    `json:"count"`
}

func TestReopenKeepsData(t *testing.T) {
	path := filepath.Join(t.TempDir(), "beamclaw.db")
	db := openAt(t, path)
	want := record{Name: "alpha", Count: 3}
	if err := db.Buckets("records"); err != nil {
		t.Fatal(err)
	}
	if err := db.Update(func(tx *bolt.Tx) error {
		v, err := Encode(want)
		if err != nil {
			return err
		}
		return tx.Bucket([]byte("records")).Put([]byte("k"), v)
	}); err != nil {
		t.Fatal(err)
	}
	db = reopen(t, db, path)
	var got record
	if err := db.View(func(tx *bolt.Tx) error {
		return Decode(tx.Bucket([]byte("records")).Get([]byte("k")), &got)
	}); err != nil {
		t.Fatal(err)
	}
	if got != want {
		t.Fatalf("got %+v, want %+v", got, want)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("file mode = %v, %v; want 0600", fi.Mode().Perm(), err)
	}
}

func TestCodecVersion(t *testing.T) {
	cases := []struct {
		name    string
		data    []byte
		wantErr string
	}{
		{"current", append([]byte{Version}, `{"name":"x"}`...), ""},
		{"empty", nil, "empty value"},
		{"future version", append([]byte{Version + 1}, `{}`...), "value version 2"},
		{"bad json", append([]byte{Version}, `{`...), "decode"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var r record
			err := Decode(tc.data, &r)
			if tc.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("err = %v, want containing %q", err, tc.wantErr)
			}
		})
	}
	if b, _ := Encode(record{}); b[0] != Version {
		t.Errorf("Encode wrote version %d", b[0])
	}
}

func TestSeqOrders(t *testing.T) {
	for _, n := range []uint64{0, 1, 255, 256, 1 << 40} {
		if got := SeqOf(Seq(n)); got != n {
			t.Errorf("SeqOf(Seq(%d)) = %d", n, got)
		}
	}
	if string(Seq(9)) >= string(Seq(10)) {
		t.Error("Seq keys do not sort numerically")
	}
}

func TestLockTimeoutAcrossProcesses(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "beamclaw.db")
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "STORE_TEST_HOLD="+path)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		_ = stdin.Close()
		_ = cmd.Wait()
	}()
	line, _ := bufio.NewReader(stdout).ReadString('\n')
	if strings.TrimSpace(line) != "open" {
		t.Fatalf("holder said %q", line)
	}
	pidFile := filepath.Join(dir, "beamclaw.pid")
	if err := os.WriteFile(pidFile, []byte(strconv.Itoa(cmd.Process.Pid)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err = Open(path, Options{PIDFile: pidFile})
	if !errors.Is(err, ErrInUse) {
		t.Fatalf("second open: %v, want ErrInUse", err)
	}
	want := fmt.Sprintf("(pid %d)", cmd.Process.Pid)
	if !strings.Contains(err.Error(), want) {
		t.Errorf("error %q does not name the holder %s", err, want)
	}
}

// Buckets that all exist cost no commit (a start of a daemon with data
// would otherwise pay two fdatasyncs per package); a missing one is made.
func TestBucketsWritesOnlyWhatIsMissing(t *testing.T) {
	db, err := Open(filepath.Join(t.TempDir(), "b.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	txid := func() int {
		var id int
		_ = db.bolt.View(func(tx *bolt.Tx) error { id = tx.ID(); return nil })
		return id
	}
	if err := db.Buckets("a", "b"); err != nil {
		t.Fatal(err)
	}
	made := txid()
	if err := db.Buckets("b", "a"); err != nil {
		t.Fatal(err)
	}
	if got := txid(); got != made {
		t.Errorf("existing buckets committed a transaction: txid %d → %d", made, got)
	}
	if err := db.Buckets("a", "c"); err != nil {
		t.Fatal(err)
	}
	if err := db.bolt.View(func(tx *bolt.Tx) error {
		if tx.Bucket([]byte("c")) == nil {
			return errors.New("bucket c was not made")
		}
		return nil
	}); err != nil {
		t.Error(err)
	}
}
