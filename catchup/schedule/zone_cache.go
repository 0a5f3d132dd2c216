package schedule

import (
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// A zone spelled as a path is read once per version of the file, not at
// every use: every line of a crontab naming one reads it several times (a
// root scan reads users' crontabs: 20,000 lines naming a file of 1 MiB, the
// cap then, took one 94 s). A version is the file's identity, size and
// times as fstat tells them: a file written since is read again, so a
// daemon sees its new content. A version read by one user is another
// user's only once that user's open of it succeeds: a version is read
// under the thread's filesystem uid (a root reader reads another user's
// zone file as that user, on a thread of their ids), and a read of root's
// is no read of theirs. The cache holds at most zoneCacheMax files
// (of MaxZoneFile at most), and is emptied when full. What it returns is
// shared: callers only read it.

const zoneCacheMax = 256

var zoneCache struct {
	sync.Mutex
	files map[string]zoneFileVersion // by path
}

// zoneFileVersion is what ReadZoneFile read at path, and of which version.
type zoneFileVersion struct {
	id   fileVersion
	data []byte
}

type fileVersion struct {
	fsuid        int // who read it (the thread's filesystem uid)
	dev, ino     uint64
	size         int64
	mtime, ctime time.Time
}

// versionOf is the version of the file st describes.
func versionOf(st *syscall.Stat_t) fileVersion {
	fsuid, _ := unix.SetfsuidRetUid(-1) // (-1 changes nothing: it says the fsuid)
	return fileVersion{fsuid: fsuid, dev: uint64(st.Dev), ino: st.Ino, size: st.Size,
		mtime: time.Unix(st.Mtim.Unix()), ctime: time.Unix(st.Ctim.Unix())}
}

// cachedZoneFile is what ReadZoneFile read at path, if it read the version
// of it that st (its descriptor's) describes.
func cachedZoneFile(path string, st *syscall.Stat_t) ([]byte, bool) {
	zoneCache.Lock()
	defer zoneCache.Unlock()
	v, ok := zoneCache.files[path]
	return v.data, ok && v.id == versionOf(st)
}

// keepZoneFile keeps what ReadZoneFile read at path, through a descriptor
// st describes (the version read).
func keepZoneFile(path string, st *syscall.Stat_t, data []byte) {
	zoneCache.Lock()
	defer zoneCache.Unlock()
	if zoneCache.files == nil || len(zoneCache.files) >= zoneCacheMax {
		zoneCache.files = map[string]zoneFileVersion{}
	}
	zoneCache.files[path] = zoneFileVersion{id: versionOf(st), data: data}
}
