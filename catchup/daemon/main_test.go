package daemon

import (
	"os"
	"testing"

	"github.com/catchup/catchup/internal/testflags"
)

// parallelWaiters is how many of the tests marked t.Parallel run at once
// unless -test.parallel says otherwise. A daemon's tests mostly wait (its
// loop's timers, the jobs it starts, a hung ping's 10 s), not work: at go
// test's default, GOMAXPROCS, two CPUs ran two at a time and stood idle.
// Alone on two CPUs the package took 19 s at 4, 17 s at 6.
const parallelWaiters = 6

func TestMain(m *testing.M) {
	testflags.DefaultParallel(parallelWaiters)
	os.Exit(m.Run())
}
