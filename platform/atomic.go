package platform

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// WriteFileAtomic writes data to path with mode perm through a temporary
// file in the same folder, synced and renamed over path: a reader never
// sees half a file, and a crash leaves the old file or the new one. The
// mode is set before the data is written, so a private file is never
// readable by others, not even briefly. The folder is created (0700) if
// missing.
func WriteFileAtomic(path string, data []byte, perm os.FileMode) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer os.Remove(tmp.Name()) // nothing left to remove after the rename
	cherr := tmp.Chmod(perm)
	var werr, serr error
	if cherr == nil {
		_, werr = tmp.Write(data)
		serr = tmp.Sync()
	}
	cerr := tmp.Close()
	if err := errors.Join(cherr, werr, serr, cerr); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
