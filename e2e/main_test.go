package e2e

import (
	"os"
	"testing"

	"github.com/catchup/catchup/cmd"
	"github.com/catchup/catchup/internal/pgtest"
	"github.com/catchup/catchup/internal/testflags"
)

// asCatchup, set in a process's environment, makes this test binary the
// catchup command (what main.go does), so that every test drives real
// catchup processes built with the same flags as the tests (-race, -cover).
const asCatchup = "CATCHUP_E2E_AS_CATCHUP"

// parallelWaiters is how many of the tests marked t.Parallel run at once
// unless -test.parallel says otherwise. Those tests spend most of their
// time waiting (a daemon's clock minutes, a user's notes, a lock held by
// another host), not working: the package took 254 s alone at a quarter
// of two CPUs, the last package to end in go test ./.... The tests that
// load the machine or measure it (load, the fleet at scale, exactly once
// under faults, a loud job's memory, the ledger faults, power cuts) stay
// serial: they run first, alone, before the parallel ones. Six at once
// took the parallel ones from 69 s to 46 s. A final CI at six (97% CPU)
// once failed a replaced-ledger test, a slot run twice: a real race the
// load brought out, since fixed (store.Session, and a replay's look for a
// note written meanwhile); those tests stay serial all the same.
const parallelWaiters = 6

func TestMain(m *testing.M) {
	if os.Getenv(asCatchup) == "1" {
		os.Exit(cmd.Execute(os.Args[1:], os.Exit))
	}
	testflags.DefaultParallel(parallelWaiters)
	pgtest.Notice("github.com/catchup/catchup/e2e")
	os.Exit(m.Run())
}
