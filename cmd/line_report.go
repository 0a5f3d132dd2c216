package cmd

import (
	"fmt"
	"os"
	"strconv"
	"syscall"

	"github.com/catchup/catchup/catchup"
)

// lineReport is the descriptor on which the scan that replays this crontab
// line hears which run this catchup run recorded of its own
// (catchup.EnvLineReport): nil when there is none, or it is not a pipe.
// It is made close-on-exec at once: the job never gets it.
func lineReport(getenv func(string) string) *os.File {
	v := getenv(catchup.EnvLineReport)
	if v == "" || getenv("CATCHUP_REPLAY_SLOT") == "" {
		return nil
	}
	fd, err := strconv.Atoi(v)
	if err != nil || fd < 3 {
		return nil
	}
	var st syscall.Stat_t
	if syscall.Fstat(fd, &st) != nil || st.Mode&syscall.S_IFMT != syscall.S_IFIFO {
		return nil // not scan's pipe: written to, it could be any file
	}
	syscall.CloseOnExec(fd)
	return os.NewFile(uintptr(fd), "replay report")
}

// reportLineRun tells the scan on f the id of res's run if this process
// recorded it, else 0 (its claim refused: the holder's run is another
// process's), and closes f.
func reportLineRun(f *os.File, res catchup.RunResult, m catchup.Machine) {
	if f == nil {
		return
	}
	id := int64(0)
	if res.Run.ID != 0 && res.Run.Host == m.Host && res.Run.PID == m.PID {
		id = res.Run.ID
	}
	fmt.Fprintf(f, "%d\n", id) // a scan that is gone no longer reads: nothing to do
	f.Close()
}
