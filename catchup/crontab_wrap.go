package catchup

import (
	"fmt"
	"os"
	"path/filepath"
)

// WriteWrapped replaces the crontab file path with text, keeping the old
// contents in path+".bak" (mode and all) first. The new file is written
// beside it and renamed over it, so that cron never reads half a file.
func WriteWrapped(path string, old []byte, text string) (backup string, err error) {
	fi, err := os.Stat(path)
	if err != nil {
		return "", fmt.Errorf("crontab %s: %w", path, err)
	}
	backup = path + ".bak"
	if err := writeFileAtomic(backup, old, fi.Mode().Perm()); err != nil {
		return "", fmt.Errorf("backup %s: %w", backup, err)
	}
	if err := writeFileAtomic(path, []byte(text), fi.Mode().Perm()); err != nil {
		return "", fmt.Errorf("write %s: %w (the original is in %s)", path, err, backup)
	}
	return backup, nil
}

func writeFileAtomic(path string, data []byte, mode os.FileMode) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Chmod(mode); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}
