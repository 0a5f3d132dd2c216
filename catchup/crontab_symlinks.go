package catchup

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/catchup/catchup/internal/filetrust"
)

// maxSymlinks bounds the symlinks followed on one path, as the kernel does
// (ELOOP).
const maxSymlinks = 40

// checkSymlinks refuses a crontab reached through a symlink that someone
// other than owners owns: whoever owns a symlink can point it at another
// file at any time (a link planted in a sticky /tmp, say), and every later
// scan, which re-reads the path it was given, would follow it. Every symlink
// on path is looked at, the file's own and its directories', and those
// their targets lead through.
func checkSymlinks(name, path string, owners []int) error {
	todo := strings.Split(filepath.Clean(path), "/")
	cur, seen := "/", 0
	if !filepath.IsAbs(path) {
		cur = "."
	}
	for len(todo) > 0 {
		c := todo[0]
		todo = todo[1:]
		switch c {
		case "", ".":
			continue
		case "..":
			cur = filepath.Dir(cur)
			continue
		}
		next := filepath.Join(cur, c)
		fi, err := os.Lstat(next)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		if fi.Mode()&os.ModeSymlink == 0 {
			cur = next
			continue
		}
		if o := filetrust.Owner(fi); !slices.Contains(owners, o) {
			return &filetrust.Refusal{Name: name,
				Reason: fmt.Sprintf("%s is a symlink owned by %s, who could point it at another file", next, filetrust.Describe(o)),
				Fix:    "point scan at the file itself, or replace the symlink with one of " + ownerNames(owners)}
		}
		if seen++; seen > maxSymlinks {
			return fmt.Errorf("%s: too many levels of symbolic links", name)
		}
		target, err := os.Readlink(next)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		if filepath.IsAbs(target) {
			cur = "/"
		}
		todo = append(strings.Split(target, "/"), todo...)
	}
	return nil
}
