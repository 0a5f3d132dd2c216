// Command pgcover picks the scenarios go test runs on PostgreSQL: from one
// coverage profile per scenario (go tool covdata textfmt, of a run of all
// scenarios on PostgreSQL with the ledger's packages instrumented), a set
// of scenarios that runs each block any scenario runs at least -k times
// (by k scenarios, or by all that run it where fewer do), chosen greedily:
// the scenario adding the most block runs still wanted first, by name on
// a tie. Scenarios whose name holds a -pin word (fleet_, two_hosts,
// _postgres: several hosts on one ledger, or PostgreSQL itself, whose point
// is the domain's behaviour there, which the store's blocks do not show)
// are always picked, first. scripts/pg-cover.sh drives
// it.
//
//	pgcover -profiles DIR -list FILE          # check: FILE still covers all
//	pgcover -profiles DIR -list FILE -write   # write FILE anew
//
// DIR holds NAME.txt for each scenario NAME.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

func main() {
	profiles := flag.String("profiles", "", "directory of NAME.txt coverage profiles, one per scenario")
	list := flag.String("list", "", "the list of scenarios run on PostgreSQL")
	write := flag.Bool("write", false, "write the list anew instead of checking it")
	k := flag.Int("k", 3, "how many of the listed scenarios must run each block (all that run it, where fewer do)")
	pin := flag.String("pin", "fleet_,two_hosts,_postgres", "comma-separated words: a scenario whose name holds one is always picked")
	flag.Parse()
	if err := run(*profiles, *list, *write, *k, strings.Split(*pin, ",")); err != nil {
		fmt.Fprintln(os.Stderr, "pgcover:", err)
		os.Exit(1)
	}
}

func run(profiles, list string, write bool, k int, pins []string) error {
	runs, err := readProfiles(profiles)
	if err != nil {
		return err
	}
	want := map[string]int{} // block -> runs wanted of the list: k, or all there are
	for _, blocks := range runs {
		for b := range blocks {
			want[b] = min(want[b]+1, k)
		}
	}
	if write {
		picked := cover(runs, want, pins)
		return writeList(list, picked, runs, len(want), k)
	}
	listed, err := readList(list)
	if err != nil {
		return err
	}
	covered := map[string]int{}
	for _, name := range listed {
		for b := range runs[name] {
			covered[b]++
		}
	}
	var missing []string
	for b, n := range want {
		if covered[b] < n {
			missing = append(missing, b)
		}
	}
	sort.Strings(missing)
	for _, b := range missing {
		var by []string
		for name, blocks := range runs {
			if blocks[b] {
				by = append(by, name)
			}
		}
		sort.Strings(by)
		if len(by) > 3 {
			by = append(by[:3], "...")
		}
		fmt.Printf("run %d of %d times by the list: %s (run by %s)\n", covered[b], want[b], b, strings.Join(by, ", "))
	}
	fmt.Printf("%d of %d scenarios listed; they run %d of the %d blocks the whole set runs as often as wanted (k=%d)\n",
		len(listed), len(runs), len(want)-len(missing), len(want), k)
	if len(missing) > 0 {
		return fmt.Errorf("%s misses %d blocks: scripts/pg-cover.sh --write makes it anew", list, len(missing))
	}
	return nil
}

// cover picks the scenarios whose names hold a word of pins, then scenarios
// greedily until they run each block as often as want asks.
func cover(runs map[string]map[string]bool, want map[string]int, pins []string) []string {
	names := make([]string, 0, len(runs))
	for name := range runs {
		names = append(names, name)
	}
	sort.Strings(names)
	wanted := map[string]int{}
	for b, n := range want {
		wanted[b] = n
	}
	taken := map[string]bool{}
	var picked []string
	take := func(name string) {
		picked, taken[name] = append(picked, name), true
		for b := range runs[name] {
			wanted[b]--
		}
	}
	for _, name := range names {
		for _, p := range pins {
			if p != "" && strings.Contains(name, p) && !taken[name] {
				take(name)
			}
		}
	}
	for {
		best, gain := "", 0
		for _, name := range names {
			if taken[name] {
				continue
			}
			n := 0
			for b := range runs[name] {
				if wanted[b] > 0 {
					n++
				}
			}
			if n > gain {
				best, gain = name, n
			}
		}
		if gain == 0 {
			sort.Strings(picked)
			return picked
		}
		take(best)
	}
}

// readProfiles reads DIR/NAME.txt: the blocks each scenario ran (count > 0).
func readProfiles(dir string) (map[string]map[string]bool, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.txt"))
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("no profiles in %s", dir)
	}
	runs := map[string]map[string]bool{}
	for _, file := range files {
		blocks, err := readProfile(file)
		if err != nil {
			return nil, err
		}
		runs[strings.TrimSuffix(filepath.Base(file), ".txt")] = blocks
	}
	return runs, nil
}

// readProfile reads one text profile: "mode: set", then lines
// "file:start,end statements count".
func readProfile(file string) (map[string]bool, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	blocks := map[string]bool{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "mode:") {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		if i < 0 {
			return nil, fmt.Errorf("%s: bad line %q", file, line)
		}
		if line[i+1:] != "0" {
			j := strings.LastIndexByte(line[:i], ' ')
			blocks[line[:j]] = true
		}
	}
	return blocks, sc.Err()
}

// readList reads the scenarios the list runs (a line NAME), not those it
// leaves out (-NAME).
func readList(file string) ([]string, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, line := range strings.Split(string(b), "\n") {
		if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "#") && !strings.HasPrefix(line, "-") {
			names = append(names, line)
		}
	}
	return names, nil
}

// writeList writes the picked scenarios (NAME), then the others that ran
// on PostgreSQL (-NAME): a scenario named in neither is newer than the
// list, and runs there until the list is picked anew.
func writeList(file string, picked []string, runs map[string]map[string]bool, blocks, k int) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# The scenarios of testdata/script that go test runs on PostgreSQL (pgscripts/first\n")
	fmt.Fprintf(&b, "# and pgscripts/second): %d of the %d that run there (NAME), the others left out\n", len(picked), len(runs))
	fmt.Fprintf(&b, "# (-NAME). Each of the %d blocks of the ledger's packages (./store/...) that\n", blocks)
	fmt.Fprintf(&b, "# those %d run is run by %d of the listed (or by all that run it, where fewer do).\n", len(runs), k)
	fmt.Fprintf(&b, "# A scenario named in neither is newer than this list and runs there too. Every\n")
	fmt.Fprintf(&b, "# scenario runs on SQLite; all run on PostgreSQL in scripts/stress-tests.sh and\n")
	fmt.Fprintf(&b, "# with CATCHUP_TEST_PG_SCRIPTS=all. Written by scripts/pg-cover.sh --write;\n")
	fmt.Fprintf(&b, "# checked by scripts/pg-cover.sh.\n")
	for _, name := range picked {
		b.WriteString(name + "\n")
	}
	taken := map[string]bool{}
	for _, name := range picked {
		taken[name] = true
	}
	var left []string
	for name := range runs {
		if !taken[name] {
			left = append(left, name)
		}
	}
	sort.Strings(left)
	for _, name := range left {
		b.WriteString("-" + name + "\n")
	}
	return os.WriteFile(file, []byte(b.String()), 0o644)
}
