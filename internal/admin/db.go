package admin

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/beamclaw/beamclaw-go/internal/store"
	"github.com/beamclaw/beamclaw-go/pkg/client"
	"github.com/beamclaw/beamclaw-go/pkg/protocol"
)

// DBBackup writes a consistent copy of the database to file: through the
// running daemon (an online copy while it serves), or from the file
// itself when none runs. The copy is written next to file and renamed
// into place, so file is never half written; it is checked before the
// rename.
func (a *Admin) DBBackup(ctx context.Context, file string) (int64, error) {
	paths, err := a.paths()
	if err != nil {
		return 0, err
	}
	abs, err := filepath.Abs(file)
	if err != nil {
		return 0, err
	}
	if abs == paths.DB {
		return 0, errors.New("the backup must not be the database itself")
	}
	tmp, err := os.CreateTemp(filepath.Dir(abs), ".beamclaw-backup-*")
	if err != nil {
		return 0, fmt.Errorf("db backup: %w", err)
	}
	defer os.Remove(tmp.Name())
	n, err := a.copyDB(ctx, paths.Socket, paths.DB, paths.PIDFile, tmp)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return 0, fmt.Errorf("db backup: %w", err)
	}
	if err := checkFile(tmp.Name()); err != nil {
		return 0, fmt.Errorf("db backup: the copy does not check out: %w", err)
	}
	if err := os.Rename(tmp.Name(), abs); err != nil {
		return 0, fmt.Errorf("db backup: %w", err)
	}
	return n, nil
}

func (a *Admin) copyDB(ctx context.Context, socket, dbPath, pidFile string, w io.Writer) (int64, error) {
	c := client.NewUnix(socket)
	defer c.Close()
	n, err := c.Download(ctx, protocol.ControlDBBackup, w)
	if !errors.Is(err, client.ErrNoDaemon) {
		return n, err
	}
	db, err := store.Open(dbPath, store.Options{ReadOnly: true, PIDFile: pidFile})
	if err != nil {
		return 0, err
	}
	defer db.Close()
	return db.WriteTo(w)
}

// DBCheck checks every page of the database: through the running daemon,
// or on the file when none runs.
func (a *Admin) DBCheck(ctx context.Context) (protocol.DBCheck, error) {
	paths, err := a.paths()
	if err != nil {
		return protocol.DBCheck{}, err
	}
	var out protocol.DBCheck
	if ok, err := controlDo(ctx, paths.Socket, "GET", protocol.ControlDBCheck, nil, &out); ok || err != nil {
		return out, err
	}
	out = protocol.DBCheck{Path: paths.DB, OK: true}
	if err := checkFile(paths.DB); err != nil {
		out.OK, out.Problem = false, err.Error()
	}
	return out, nil
}

// checkFile opens a database file read-only and checks every page.
func checkFile(path string) error {
	db, err := store.Open(path, store.Options{ReadOnly: true})
	if err != nil {
		return err
	}
	defer db.Close()
	return db.Check()
}
