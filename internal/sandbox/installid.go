package sandbox

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// InstallID returns the installation id kept in file, creating the file
// (mode 0600, a random id) on first use. The daemon and the CLI read the
// same file ($BEAMCLAW_HOME/install-id), so containers are labelled, listed
// and reaped per installation: two homes on one engine never touch each
// other's containers.
func InstallID(file string) (string, error) {
	if id, err := readInstallID(file); err == nil || !errors.Is(err, fs.ErrNotExist) {
		return id, err
	}
	if err := os.MkdirAll(filepath.Dir(file), 0o700); err != nil {
		return "", fmt.Errorf("install id: %w", err)
	}
	// Written aside, then linked into place: a reader never sees a half
	// written file, and of two processes racing, one id wins.
	tmp, err := os.CreateTemp(filepath.Dir(file), ".install-id-*")
	if err != nil {
		return "", fmt.Errorf("install id: %w", err)
	}
	defer os.Remove(tmp.Name())
	_, err = tmp.WriteString("bc-" + randomHex(8) + "\n")
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Link(tmp.Name(), file)
	}
	if err != nil && !errors.Is(err, fs.ErrExist) {
		return "", fmt.Errorf("install id: %w", err)
	}
	return readInstallID(file)
}

func readInstallID(file string) (string, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return "", fmt.Errorf("install id: %w", err)
	}
	id := strings.TrimSpace(string(b))
	if !installIDRE().MatchString(id) {
		return "", fmt.Errorf("install id: %s holds %q, not 1-64 letters, digits, '.', '_' or '-': remove the file and a new id is made", file, id)
	}
	return id, nil
}
