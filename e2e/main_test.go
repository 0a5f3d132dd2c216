package e2e

import (
	"os"
	"testing"

	"github.com/catchup/catchup/cmd"
	"github.com/catchup/catchup/internal/pgtest"
)

// asCatchup, set in a process's environment, makes this test binary the
// catchup command (what main.go does), so that every test drives real
// catchup processes built with the same flags as the tests (-race, -cover).
const asCatchup = "CATCHUP_E2E_AS_CATCHUP"

func TestMain(m *testing.M) {
	if os.Getenv(asCatchup) == "1" {
		os.Exit(cmd.Execute(os.Args[1:], os.Exit))
	}
	pgtest.Notice("github.com/catchup/catchup/e2e")
	os.Exit(m.Run())
}
