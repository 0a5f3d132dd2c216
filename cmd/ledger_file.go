package cmd

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/catchup/catchup/internal/filetrust"
)

// ledgerFile is the CATCHUP_DB_FILE the ledger location is read from, ""
// when --db or CATCHUP_DB says where it is.
func ledgerFile(g *globals) string {
	if g.db != "" || os.Getenv("CATCHUP_DB") != "" {
		return ""
	}
	return os.Getenv("CATCHUP_DB_FILE")
}

// readLedgerFile reads a ledger location from a file (CATCHUP_DB_FILE), so
// that a PostgreSQL password stays off the command line and out of the
// environment. Like libpq's .pgpass, the file must be this user's (or
// root's) and readable by no one else, reached through no other user's
// symlink (its owner chose what it points at), as a --ping-file.
// It is looked at before it is opened, and opened (without blocking) only
// when it is a regular file (filetrust.OpenIfRegular): a FIFO would wait for
// a writer, and a device a symlink swapped in (a shared directory) acts
// as it is opened.
func readLedgerFile(path string) (string, error) {
	if err := filetrust.PlantedLink("CATCHUP_DB_FILE", path, os.Geteuid()); err != nil {
		return "", err
	}
	f, fi, err := filetrust.OpenIfRegular(path)
	if err != nil {
		return "", fmt.Errorf("CATCHUP_DB_FILE: %w", err)
	}
	if f != nil {
		defer f.Close()
	}
	name := "CATCHUP_DB_FILE " + path
	if !fi.Mode().IsRegular() {
		return "", &filetrust.Refusal{Name: name, Reason: "it is not a regular file",
			Fix: "name a file of your own holding the ledger's path or postgres:// URL, mode 600"}
	}
	if err := filetrust.Owned(name, path, fi, os.Geteuid()); err != nil {
		return "", err
	}
	if perm := fi.Mode().Perm(); perm&0o066 != 0 {
		what := "readable"
		if perm&0o044 == 0 {
			what = "writable"
		}
		return "", &filetrust.Refusal{Name: name, Reason: fmt.Sprintf("it is %s by others (mode %04o)", what, perm),
			Fix: "chmod 600 " + path}
	}
	data, err := io.ReadAll(io.LimitReader(f, 64<<10))
	if err != nil {
		return "", fmt.Errorf("CATCHUP_DB_FILE: %w", err)
	}
	loc := strings.TrimSpace(string(data))
	if loc == "" || strings.ContainsAny(loc, "\n\r") {
		return "", errors.New(name + ": want one line: the ledger's path or postgres:// URL")
	}
	return loc, nil
}
