package sqlite

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/catchup/catchup/internal/filetrust"
)

// Access modes of access(2).
const (
	accessX = 1
	accessW = 2
	accessR = 4
)

// cannotWrite is the error of a ledger SQLite could not write
// (SQLITE_READONLY) or open (SQLITE_CANTOPEN): it names the file, or the
// directory, in the way, and the fix.
func (s *Ledger) cannotWrite(op string, err error) error {
	return fmt.Errorf("%s %s: %w; %s", op, s.path, err, accessHint(s.real))
}

// accessHint says which of the ledger's files at real (the file, its -wal
// and -shm, its directory) this user cannot use, and how to fix that.
func accessHint(real string) string {
	uid := os.Geteuid()
	const elsewhere = "or point catchup at a ledger this user can write (--db, CATCHUP_DB or CATCHUP_STATE_DIR)"
	dir := filepath.Dir(real)
	files := []struct {
		what, path string
		mode       uint32
	}{
		{"ledger file", real, accessR | accessW},
		{"ledger file", real + "-wal", accessR | accessW},
		{"ledger file", real + "-shm", accessR | accessW},
		{"ledger directory", dir, accessW | accessX},
	}
	for i, c := range files {
		err := syscall.Access(c.path, c.mode)
		if flag := lockedAttr(c.path); flag != "" && (err == nil || errors.Is(err, syscall.EPERM)) {
			// Its mode may say writable: chmod would not help.
			return fmt.Sprintf("the %s %s is %s (chattr +%s); fix: chattr -%s %s, %s",
				c.what, c.path, map[string]string{"i": "immutable", "a": "append-only"}[flag], flag, flag, c.path, elsewhere)
		}
		switch {
		case err == nil || errors.Is(err, syscall.ENOENT):
			continue
		case errors.Is(err, syscall.EROFS):
			return fmt.Sprintf("the %s %s is on a read-only file system; fix: %s, %s", c.what, c.path, roFSFix, elsewhere)
		}
		fi, serr := os.Stat(c.path)
		if serr != nil {
			continue
		}
		owner, bits := filetrust.Owner(fi), missingBits(c.path, c.mode)
		fix := fmt.Sprintf("chown %d %s", uid, c.path)
		if owner == uid {
			// SQLite gives the -wal and -shm the file's mode: a file made
			// read-only has them so too, and one chmod fixes them all.
			paths := []string{c.path}
			if c.what == "ledger file" { // files[:3]
				paths = append(paths, sameFix(files[i+1:3], uid, bits)...)
			}
			fix = "chmod u+" + bits + " " + strings.Join(paths, " ")
		}
		return fmt.Sprintf("the %s %s (owner %s, mode %04o) cannot be %s by %s running catchup; fix: %s, %s",
			c.what, c.path, filetrust.Describe(owner), filetrust.ModeBits(fi.Mode()), bitWords(bits), filetrust.Describe(uid), fix, elsewhere)
	}
	if hint := readOnlyFSHint(real); hint != "" { // access(2) cannot tell
		return hint
	}
	return fmt.Sprintf("the ledger file, its -wal and -shm and its directory %s must be readable and writable by %s running catchup; fix: their owner or mode, %s",
		dir, filetrust.Describe(uid), elsewhere)
}

// missingBits is chmod's letters for the modes of want that path lacks.
func missingBits(path string, want uint32) string {
	bits := ""
	for _, b := range []struct {
		mode   uint32
		letter string
	}{{accessR, "r"}, {accessW, "w"}, {accessX, "x"}} {
		if want&b.mode != 0 && syscall.Access(path, b.mode) != nil {
			bits += b.letter
		}
	}
	if bits == "" {
		bits = "rw"
	}
	return bits
}

// bitWords says chmod's letters in words: "read or written".
func bitWords(bits string) string {
	words := map[rune]string{'r': "read", 'w': "written", 'x': "searched"}
	out := ""
	for _, b := range bits {
		if out != "" {
			out += " or "
		}
		out += words[b]
	}
	return out
}

// sameFix is the paths of the ledger's files among files (the -wal, the
// -shm) that uid owns and that lack just bits, as the one before them.
func sameFix(files []struct {
	what, path string
	mode       uint32
}, uid int, bits string) []string {
	var paths []string
	for _, f := range files {
		fi, err := os.Stat(f.path)
		if err == nil && filetrust.Owner(fi) == uid && syscall.Access(f.path, f.mode) != nil && missingBits(f.path, f.mode) == bits {
			paths = append(paths, f.path)
		}
	}
	return paths
}
