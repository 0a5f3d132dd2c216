// Command catchup runs cron jobs so that none is lost: it records every fire
// in a ledger and replays the slots that were missed while the host was down.
package main

import (
	"os"

	_ "github.com/catchup/catchup/internal/prefault"

	"github.com/catchup/catchup/cmd"
)

func main() {
	os.Exit(cmd.Execute(os.Args[1:], os.Exit))
}
