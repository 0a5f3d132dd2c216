package schedule

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// zoneinfoRoot is where the tz database's zone files are looked for by
// content.
const zoneinfoRoot = "/usr/share/zoneinfo"

// zoneCopy is the tz database name of the zone file at path when that is
// a copy of one (not a link: ZoneSpelling follows those), as glibc reads
// TZ=:/etc/localtime in an image that copied it; "" otherwise.
func zoneCopy(path string) string {
	data, err := os.ReadFile(path)
	if err != nil || !bytes.HasPrefix(data, []byte("TZif")) {
		return ""
	}
	return ZoneOfFile(data)
}

// loadable reports whether name is a zone of the tz database.
func loadable(name string) bool {
	_, err := time.LoadLocation(name)
	return err == nil
}

// ZoneOfFile names the zone of the tz database whose zone file's content is
// data (a copied /etc/localtime), preferring names with a region
// ("Europe/Berlin"); "" when none is. It reads the zoneinfo tree: only
// for a zone spelled as a path that is no link into it.
func ZoneOfFile(data []byte) string {
	var found, flat string
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
		if info, err := d.Info(); err != nil || info.Size() != int64(len(data)) {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil || !bytes.Equal(b, data) || !loadable(rel) {
			return nil
		}
		if strings.Contains(rel, "/") && !strings.HasPrefix(rel, "Etc/") {
			found = rel
			return fs.SkipAll
		}
		if flat == "" {
			flat = rel
		}
		return nil
	})
	if found == "" {
		found = flat
	}
	return found
}
