package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/catchup/catchup/catchup/schedule"
)

// goZoneSources are the directories Go's time package reads a relative TZ
// under, in its order (after $ZONEINFO): its first existing file is the one
// it opens.
var goZoneSources = []string{"/usr/share/zoneinfo/", "/usr/share/lib/zoneinfo/", "/usr/lib/locale/TZ/", "/etc/zoneinfo/"}

// guardLocalZone keeps Go's time.Local from opening a TZ that names no
// regular zone file: Go opens it at the process's first local time, and a
// FIFO blocks that open forever, SIGTERM ignored (any user's crontab may set
// TZ= for its lines, and scan replays them); /dev/zero reads without end.
// Such a TZ reads as UTC, as Go reads a TZ it cannot load. A TZ that is a
// zone name, or the path of a regular file of a zone's size, is left to Go.
// It must run before anything reads a local time.
func guardLocalZone() {
	tz, ok := os.LookupEnv("TZ")
	name := strings.TrimPrefix(tz, ":")
	if !ok || name == "" || name == "UTC" {
		return
	}
	candidates := []string{name}
	if !filepath.IsAbs(name) {
		candidates = nil
		if dir := os.Getenv("ZONEINFO"); dir != "" {
			candidates = append(candidates, filepath.Join(dir, name))
		}
		for _, dir := range goZoneSources {
			candidates = append(candidates, dir+name)
		}
	}
	for _, path := range candidates {
		fi, err := os.Stat(path)
		if err != nil {
			continue // Go tries the next source
		}
		if !fi.Mode().IsRegular() || fi.Size() > schedule.MaxZoneFile {
			// Go's local zone is read once, from TZ, at its first use
			// (a time a package made at init may use it later): have it
			// read UTC, then give TZ back as it was (the job gets it).
			os.Setenv("TZ", "UTC")
			_ = time.Local.String()
			os.Setenv("TZ", tz)
		}
		return
	}
}
