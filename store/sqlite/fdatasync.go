package sqlite

import driver "modernc.org/sqlite"

// syncWithFdatasync makes this process's commits sync the WAL with
// fdatasync(2) instead of fsync(2). fdatasync writes the file's data and the
// metadata needed to read it back (its size); it skips only the timestamps,
// whose update ext4 otherwise commits through its journal at every commit.
// A commit is as durable as before (L1): it is what SQLite does wherever
// its configure script finds fdatasync, every Linux distribution's build;
// modernc's transpiled library keeps SQLite's source default, fsync, unless
// asked. The WAL stays at rest and is rewritten in place after each
// checkpoint (keepwal.go), so most commits change no size either.
//
// The setting is process-wide; where fdatasync is not available (macOS,
// Windows) the driver refuses it and commits keep syncing with fsync.
func syncWithFdatasync() { driver.Fdatasync(true) }
