package schedule

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// zoneinfoRoot is where the tz database's zone files are looked for by
// content.
const zoneinfoRoot = "/usr/share/zoneinfo"

// zoneCopy is the tz database name of the zone file at path when that is
// a copy of one (not a link: ZoneSpelling follows those), as glibc reads
// TZ=:/etc/localtime in an image that copied it; "" otherwise.
func zoneCopy(path string) string {
	data, err := ReadZoneFile(path)
	if err != nil || !bytes.HasPrefix(data, []byte("TZif")) {
		return ""
	}
	return ZoneOfFile(data)
}

// MaxZoneFile bounds what is read of a zone file: a TZif file of the tz
// database is a few KB (none reaches 4 KB), so 64 KiB is room to spare.
// It was 1 MiB: a crontab whose lines all named such a file cost a root
// scan a read of it several times per line (zone_cache.go).
const MaxZoneFile = 64 << 10

// ReadZoneFile reads the zone file at path, as a zone spelled as a path
// (CRON_TZ=, --tz, any user's crontab a root scan reads) makes catchup
// read it: only a regular file (through symlinks), of at most MaxZoneFile
// bytes. Anything else is refused unread: opening a FIFO blocks until
// someone writes to it (SIGTERM or not), a device may never end, and
// opening one may act on it (/dev/watchdog arms the host's reboot). path
// is resolved once, into a descriptor that opens nothing (O_PATH: no
// device's open, no FIFO's wait); the file it names is checked through
// it, then opened through it (/proc/self/fd), without blocking, and
// checked again: its user cannot swap a symlink to a device in after the
// check (stat'ed, then opened by name again, a swap in between had root
// open the device). An error says why, without the path: "it is not a
// regular file".
func ReadZoneFile(path string) ([]byte, error) {
	pfd, err := syscall.Open(path, unix.O_PATH|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	defer syscall.Close(pfd)
	var st syscall.Stat_t
	if err := syscall.Fstat(pfd, &st); err != nil {
		return nil, err
	}
	if err := zoneFileOK(&st); err != nil {
		return nil, err
	}
	if data, ok := cachedZoneFile(path, &st); ok {
		return data, nil // this version of it, read before (zone_cache.go)
	}
	// Raw system calls, not an os.File: Go's poller would wait on a
	// pollable file (/proc/kmsg is "regular") that has nothing to read.
	fd, err := syscall.Open("/proc/self/fd/"+strconv.Itoa(pfd), syscall.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOCTTY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("cannot open it through /proc/self/fd (is /proc mounted?): %w", err)
	}
	defer syscall.Close(fd)
	checked := st
	if err := syscall.Fstat(fd, &st); err != nil {
		return nil, err
	}
	if st.Mode&syscall.S_IFMT != syscall.S_IFREG || st.Dev != checked.Dev || st.Ino != checked.Ino {
		return nil, errors.New("it is not a regular file")
	}
	if st.Size == 0 {
		return nil, errors.New("it is empty") // a zone file never is; /proc's files say 0
	}
	var data []byte
	// Sized to the file (a few KB at most), not to the bound: a 64 KiB
	// buffer is 16 pages to zero and fault in, twice per run where TZ and
	// /etc/localtime spell one zone two ways. The byte more sees the end.
	buf := make([]byte, min(st.Size, MaxZoneFile)+1)
	for len(data) <= MaxZoneFile {
		n, err := syscall.Read(fd, buf)
		if errors.Is(err, syscall.EINTR) {
			continue
		}
		if errors.Is(err, syscall.EAGAIN) {
			return nil, errors.New("its read would block")
		}
		if err != nil {
			return nil, err
		}
		if n == 0 {
			keepZoneFile(path, &st, data)
			return data, nil
		}
		data = append(data, buf[:n]...)
	}
	return nil, errZoneFileSize // it grew since
}

var errZoneFileSize = fmt.Errorf("it is larger than %d KiB", MaxZoneFile>>10)

// zoneFileOK refuses what ReadZoneFile must not read.
func zoneFileOK(st *syscall.Stat_t) error {
	if st.Mode&syscall.S_IFMT != syscall.S_IFREG {
		return errors.New("it is not a regular file")
	}
	if st.Size > MaxZoneFile {
		return errZoneFileSize
	}
	return nil
}

// loadable reports whether name is a zone of the tz database.
func loadable(name string) bool {
	_, err := time.LoadLocation(name)
	return err == nil
}

// ZoneOfFile names the zone of the tz database whose zone file's content is
// data (a copied /etc/localtime), preferring names with a region
// ("Europe/Berlin"); "" when none is. It reads the zoneinfo tree's files
// of data's size (zoneIndex): only for a zone spelled as a path that is no
// link into it.
func ZoneOfFile(data []byte) string {
	var flat string
	for _, rel := range zoneIndex()[int64(len(data))] {
		b, err := os.ReadFile(filepath.Join(zoneinfoRoot, rel))
		if err != nil || !bytes.Equal(b, data) || !loadable(rel) {
			continue
		}
		if strings.Contains(rel, "/") && !strings.HasPrefix(rel, "Etc/") {
			return rel
		}
		if flat == "" {
			flat = rel
		}
	}
	return flat
}

// zoneIndex lists the zoneinfo tree's regular files by size, in the order
// of a walk of the tree, walked once: it walked at every use of a zone
// spelled as a path that starts as a zone file does (a crontab's 20,000
// lines naming one took a root scan 55 s).
var zoneIndex = sync.OnceValue(func() map[int64][]string {
	index := map[int64][]string{}
	filepath.WalkDir(zoneinfoRoot, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		rel, _ := filepath.Rel(zoneinfoRoot, p)
		if d.IsDir() {
			if rel == "posix" || rel == "right" {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		if info, err := d.Info(); err == nil {
			index[info.Size()] = append(index[info.Size()], rel)
		}
		return nil
	})
	return index
})
