package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/catchup/catchup/catchup/schedule"
)

// goZoneSources are the directories Go's time package reads a relative TZ
// under, in its order: its first existing file is the one it opens.
var goZoneSources = []string{zoneinfoDir + "/", "/usr/share/lib/zoneinfo/", "/usr/lib/locale/TZ/", "/etc/zoneinfo/"}

// guardLocalZone reads the zone TZ names for Go's time.Local itself, never
// letting Go open it: Go opens it, blocking, at the process's first local
// time, and a FIFO blocks that open forever, SIGTERM ignored (any user's
// crontab may set TZ= for its lines, and scan replays them; a regular file
// swapped for a FIFO after a check would do the same). The file Go would
// open (TZ's path, or the first of Go's zone directories holding the name)
// is read once, without blocking, only when it is a regular file of a
// zone's size (schedule.ReadZoneFile); else, or when it is no zone, the
// local zone is UTC, as Go reads a TZ it cannot load. TZ itself stays as
// it is: the job gets it. It must run before anything reads a local time.
func guardLocalZone() {
	tz, ok := os.LookupEnv("TZ")
	name := strings.TrimPrefix(tz, ":")
	if !ok || name == "" || name == "UTC" {
		return // Go reads /etc/localtime (root's), or UTC
	}
	// Go's local zone is read once, at its first use (a time a package
	// made at init may use it later): have it read UTC, without a file.
	os.Setenv("TZ", "UTC")
	_ = time.Local.String()
	os.Setenv("TZ", tz)
	if loc := readLocalZone(name); loc != nil {
		time.Local = loc
	}
}

// readLocalZone is the zone in the file Go would read for TZ=name, named
// "Local" as Go names it; nil when there is none it may read.
func readLocalZone(name string) *time.Location {
	candidates := []string{name}
	if !filepath.IsAbs(name) {
		candidates = nil
		for _, dir := range goZoneSources {
			candidates = append(candidates, dir+name)
		}
	}
	for _, path := range candidates {
		if _, err := os.Stat(path); err != nil {
			continue // Go tries the next directory
		}
		data, err := schedule.ReadZoneFile(path)
		if err != nil {
			return nil
		}
		loc, err := time.LoadLocationFromTZData("Local", data)
		if err != nil {
			return nil
		}
		return loc
	}
	return nil
}
