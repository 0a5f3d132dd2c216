package scripttest

import (
	"flag"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
)

// WaitBoundParallel is how many scenarios a package of them runs at once
// when go test's -parallel is not given (its default is GOMAXPROCS). A
// scenario spends most of its time waiting for the catchup processes it
// starts (their starts, a lock, a job's sleep, a wait's deadline): the
// SQLite scenarios kept 0.63 of 2 cores busy at GOMAXPROCS's 2 (wall
// 101 s, user+sys 64 s), and at 4 took 69 s for the same CPU time.
const WaitBoundParallel = 4

// RaiseParallel sets -test.parallel to WaitBoundParallel for the test
// binary's own run when neither the command line gave -parallel nor
// GOMAXPROCS is larger already. A copy of the binary run by a scenario as
// `catchup` (cmd, testscript.Main) parses no test flags: it is left alone.
// Call it first in TestMain.
func RaiseParallel(cmd string) {
	if filepath.Base(os.Args[0]) == cmd {
		return
	}
	flag.Parse()
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == "test.parallel" })
	if !given && runtime.GOMAXPROCS(0) < WaitBoundParallel {
		if err := flag.Set("test.parallel", strconv.Itoa(WaitBoundParallel)); err != nil {
			panic(err) // testing defines -test.parallel before TestMain runs
		}
	}
}
