// Command gendocs writes catchup's man pages and shell completions for the
// release packages (see .goreleaser.yaml):
//
//	go run ./scripts/gendocs -out build/docs [-version v1.2.3]
//
// writes OUT/man/*.1.gz (section 1, gzipped, one page per command) and
// OUT/completions/{catchup.bash,_catchup,catchup.fish}. The output is
// reproducible: no generation date in the pages (the header date honours
// SOURCE_DATE_EPOCH) and no timestamps in the gzip headers.
package main

import (
	"compress/gzip"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra/doc"

	"github.com/catchup/catchup/cmd"
)

func main() {
	out := flag.String("out", "build/docs", "output directory")
	version := flag.String("version", cmd.Version, "version shown in the man page footer")
	flag.Parse()
	if err := run(*out, *version); err != nil {
		fmt.Fprintf(os.Stderr, "gendocs: %v\n", err)
		os.Exit(1)
	}
}

func run(out, version string) error {
	manDir := filepath.Join(out, "man")
	compDir := filepath.Join(out, "completions")
	// Start clean so that pages of removed commands do not linger.
	for _, d := range []string{manDir, compDir} {
		if err := os.RemoveAll(d); err != nil {
			return err
		}
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}

	root := cmd.NewRootCommand()
	root.DisableAutoGenTag = true
	header := &doc.GenManHeader{Title: "CATCHUP", Section: "1", Source: "catchup " + version, Manual: "catchup manual"}
	if err := doc.GenManTree(root, header, manDir); err != nil {
		return fmt.Errorf("man pages: %w", err)
	}
	pages, err := filepath.Glob(filepath.Join(manDir, "*.1"))
	if err != nil {
		return err
	}
	for _, p := range pages {
		if err := gzipFile(p); err != nil {
			return err
		}
	}

	if err := root.GenBashCompletionFileV2(filepath.Join(compDir, "catchup.bash"), true); err != nil {
		return fmt.Errorf("bash completion: %w", err)
	}
	if err := root.GenZshCompletionFile(filepath.Join(compDir, "_catchup")); err != nil {
		return fmt.Errorf("zsh completion: %w", err)
	}
	if err := root.GenFishCompletionFile(filepath.Join(compDir, "catchup.fish"), true); err != nil {
		return fmt.Errorf("fish completion: %w", err)
	}
	fmt.Printf("gendocs: %d man pages in %s, 3 completions in %s\n", len(pages), manDir, compDir)
	return nil
}

// gzipFile replaces path with path.gz, with an empty gzip header (no name,
// no mtime) so that the output is byte-for-byte reproducible.
func gzipFile(path string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	f, err := os.Create(path + ".gz")
	if err != nil {
		return err
	}
	zw, err := gzip.NewWriterLevel(f, gzip.BestCompression)
	if err != nil {
		f.Close()
		return err
	}
	if _, err := zw.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := zw.Close(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Remove(path)
}
