package filetrust

import (
	"fmt"
	"io/fs"
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// OpenIfRegular opens the file path names (through symlinks) for reading,
// without blocking, only when it is a regular file; else f is nil and fi
// says what it is. Nothing else is opened, however path changes meanwhile.
func OpenIfRegular(path string) (f *os.File, fi os.FileInfo, err error) {
	pfd, err := unix.Open(path, unix.O_PATH|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	p := os.NewFile(uintptr(pfd), path)
	defer p.Close()
	if fi, err = p.Stat(); err != nil || !fi.Mode().IsRegular() {
		return nil, fi, err
	}
	fd, err := unix.Open("/proc/self/fd/"+strconv.Itoa(pfd), unix.O_RDONLY|unix.O_NONBLOCK|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	f = os.NewFile(uintptr(fd), path)
	if fi, err = f.Stat(); err != nil || !fi.Mode().IsRegular() {
		f.Close()
		return nil, nil, fmt.Errorf("open %s: it changed as it was opened", path)
	}
	return f, fi, nil
}
