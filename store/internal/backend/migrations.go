// Package backend is the code the ledger backends (store/sqlite and
// store/postgres) share: reading their embedded migrations and the small
// rules of the Store contract both apply the same way.
package backend

import (
	"fmt"
	"io/fs"
	"sort"
	"strconv"
	"strings"

	"github.com/catchup/catchup/store"
)

// Migration is one embedded SQL file. Files are named NNNN_title.sql and
// applied in order of NNNN, the schema version each brings the ledger to.
type Migration struct {
	Version int
	SQL     string
}

// LoadMigrations reads the NNNN_title.sql files at the top of fsys, in
// version order.
func LoadMigrations(fsys fs.FS) ([]Migration, error) {
	entries, err := fs.ReadDir(fsys, ".")
	if err != nil {
		return nil, fmt.Errorf("read embedded migrations: %w", err)
	}
	var ms []Migration
	for _, e := range entries {
		v, ok, err := migrationVersion(e.Name())
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		body, err := fs.ReadFile(fsys, e.Name())
		if err != nil {
			return nil, err
		}
		ms = append(ms, Migration{Version: v, SQL: string(body)})
	}
	sort.Slice(ms, func(i, j int) bool { return ms[i].Version < ms[j].Version })
	return ms, nil
}

// LatestMigration is LatestVersion(LoadMigrations(fsys)) from the files
// names alone: opening an up-to-date ledger, every command's case, reads
// no migration.
func LatestMigration(fsys fs.FS) (int, error) {
	entries, err := fs.ReadDir(fsys, ".")
	if err != nil {
		return 0, fmt.Errorf("read embedded migrations: %w", err)
	}
	latest := 0
	for _, e := range entries {
		v, ok, err := migrationVersion(e.Name())
		if err != nil {
			return 0, err
		}
		if ok {
			latest = max(latest, v)
		}
	}
	return latest, nil
}

// migrationVersion is the NNNN of a file named NNNN_title.sql; ok is false
// for a name without "_", which is no migration.
func migrationVersion(name string) (v int, ok bool, err error) {
	num, _, ok := strings.Cut(name, "_")
	if !ok {
		return 0, false, nil
	}
	v, err = strconv.Atoi(num)
	if err != nil {
		return 0, false, fmt.Errorf("migration %s: bad version: %w", name, err)
	}
	return v, true, nil
}

// LatestVersion is the schema version this binary writes.
func LatestVersion(ms []Migration) int {
	if len(ms) == 0 {
		return 0
	}
	return ms[len(ms)-1].Version
}

// CheckNotNewer refuses a schema newer than the embedded migrations.
func CheckNotNewer(ms []Migration, current int) error {
	if want := LatestVersion(ms); current > want {
		return fmt.Errorf("%w: schema version %d, this catchup knows up to %d; upgrade catchup", store.ErrSchemaTooNew, current, want)
	}
	return nil
}
