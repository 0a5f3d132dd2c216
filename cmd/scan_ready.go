package cmd

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/catchup/catchup/catchup"
	"github.com/catchup/catchup/internal/sdnotify"
)

// defaultReadyAfter is how long a scan under systemd (a Type=notify unit)
// replays before it says it has started, so that the units ordered after
// it (cron, in the packaged unit) start while its replays run on.
const defaultReadyAfter = 5 * time.Minute

// systemdReady tells systemd that scan has started (sd_notify READY=1),
// when NOTIFY_SOCKET says a Type=notify unit runs it: once readyAfter has
// passed, or at done (scan's end; not when it ends in error, exit 2),
// whichever comes first. The packaged
// unit orders cron after the boot scan, so that cron's fires find the
// backlog replayed; as a oneshot, one replayed job that hangs kept cron,
// and every cron job of the host, from starting until it ended. It takes
// NOTIFY_SOCKET out of the environment the replayed jobs inherit (a job
// that spoke to it would speak for scan's unit). Without NOTIFY_SOCKET it
// does nothing. A failure to send is a warning on stderr, once. An error
// exit sends nothing: systemd then fails the start and restarts the scan
// (Restart=on-failure), the units ordered after it waiting for that, as
// they did for a oneshot (an unreachable shared ledger at boot).
func systemdReady(readyAfter time.Duration, stderr io.Writer) (done func(failed bool)) {
	socket, ok := os.LookupEnv("NOTIFY_SOCKET")
	if !ok {
		return func(bool) {}
	}
	os.Unsetenv("NOTIFY_SOCKET")
	n := sdnotify.New(socket)
	var warned sync.Once
	ready := func(status string) {
		if err := n.Ready(status); err != nil {
			warned.Do(func() {
				fmt.Fprintf(stderr, "catchup: warning: cannot tell systemd that scan has started (NOTIFY_SOCKET): %v\n", err)
			})
		}
	}
	t := time.AfterFunc(readyAfter, func() {
		ready(fmt.Sprintf("started after --ready-after %s; missed slots still replaying", catchup.FormatDuration(readyAfter)))
	})
	return func(failed bool) {
		t.Stop()
		if !failed {
			ready("scan done")
		}
	}
}
