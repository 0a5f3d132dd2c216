package catchup

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// WriteWrapped replaces the crontab file path with text, keeping the old
// contents in path+".bak" first. Both keep the original's mode, owner and
// group: cron refuses a user's crontab that another user owns, and would stop
// all of that user's jobs. The new file is written beside it and renamed over
// it, so that cron never reads half a file. euid is the caller's effective
// uid: only root can give a file to another user, so anyone else is refused,
// before anything is written, a file that is not theirs. A symlink is refused
// too: the rename would replace the link with a file.
func WriteWrapped(path string, old []byte, text string, euid int) (backup string, err error) {
	fi, err := os.Lstat(path)
	if err != nil {
		return "", fmt.Errorf("crontab %s: %w", path, err)
	}
	if fi.Mode()&os.ModeSymlink != 0 {
		target, err := filepath.EvalSymlinks(path)
		if err == nil {
			target, err = filepath.Abs(target)
		}
		if err != nil {
			return "", fmt.Errorf("crontab %s is a symlink (%w); --in-place would replace the link with a file: wrap the file it points to", path, err)
		}
		return "", fmt.Errorf("crontab %s is a symlink to %s; --in-place would replace the link with a file: wrap the file itself: catchup crontab wrap --in-place %s", path, target, target)
	}
	if !fi.Mode().IsRegular() {
		return "", fmt.Errorf("crontab %s is not a regular file", path)
	}
	uid, gid := -1, -1
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		uid, gid = int(st.Uid), int(st.Gid)
	}
	if euid != 0 && uid >= 0 && uid != euid {
		return "", fmt.Errorf("crontab %s is owned by uid %d, not by you (uid %d): rewritten, it would be yours, and cron refuses a crontab owned by another user than its own; run this as root (which keeps the owner) or as uid %d", path, uid, euid, uid)
	}
	own := func(f *os.File) error {
		if uid < 0 {
			return nil
		}
		if err := f.Chown(uid, gid); err != nil {
			return fmt.Errorf("keep owner %d:%d: %w", uid, gid, err)
		}
		return nil
	}
	backup = path + ".bak"
	if err := writeFileAtomic(backup, old, fi.Mode().Perm(), own); err != nil {
		return "", fmt.Errorf("backup %s: %w", backup, err)
	}
	if err := writeFileAtomic(path, []byte(text), fi.Mode().Perm(), own); err != nil {
		return "", fmt.Errorf("write %s: %w (the original is in %s)", path, err, backup)
	}
	return backup, nil
}

// writeFileAtomic writes data to a new file beside path, gives it mode and
// whatever prepare does (its owner), and renames it over path.
func writeFileAtomic(path string, data []byte, mode os.FileMode, prepare func(*os.File) error) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := prepare(f); err != nil {
		f.Close()
		return err
	}
	// After the chown, which may clear set-id bits.
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
