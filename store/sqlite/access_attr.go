package sqlite

import (
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// The inode flags of linux/fs.h that chattr +i and +a set.
const (
	fsImmutableFL = 0x10
	fsAppendFL    = 0x20
)

// lockedAttr is "i" when path has the immutable attribute (chattr +i),
// "a" when it is append-only (chattr +a), "" otherwise or when the file
// system has no such attributes: files SQLite cannot write whatever their
// mode and owner.
func lockedAttr(path string) string {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return ""
	}
	defer f.Close()
	flags, err := unix.IoctlGetUint32(int(f.Fd()), unix.FS_IOC_GETFLAGS)
	switch {
	case err != nil:
		return ""
	case flags&fsImmutableFL != 0:
		return "i"
	case flags&fsAppendFL != 0:
		return "a"
	}
	return ""
}
