// Package testflags sets the defaults of go test's flags that a test
// package's TestMain chooses for itself.
package testflags

import (
	"flag"
	"strconv"
)

// DefaultParallel makes -test.parallel n unless the command line sets it,
// for a package whose parallel tests wait more than they work (processes,
// clocks, the disk): at go test's default, GOMAXPROCS, two CPUs ran two
// of them at a time and stood half idle. Call it from TestMain, before
// m.Run.
func DefaultParallel(n int) {
	if !flag.Parsed() {
		flag.Parse()
	}
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "test.parallel" })
	if !set {
		flag.Set("test.parallel", strconv.Itoa(n))
	}
}
