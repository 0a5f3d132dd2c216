package catchup

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/catchup/catchup/runner"
)

// EnvLineReport names the descriptor on which scan (or backfill) hears,
// from the `catchup run` of a crontab line it replays, the id of the run
// that run recorded of its own, or 0 when it recorded none (its claim
// refused: the slot done or held elsewhere). The ledger alone cannot tell
// that run from another process's run of the slot on the same host (a
// second scan at once), which readBack took for the line's.
const EnvLineReport = "CATCHUP_REPLAY_FD"

// lineReport is a line's report pipe.
type lineReport struct{ r, w *os.File }

// newLineReport gives cfg's command the write end of a new pipe as its
// first extra descriptor, named by EnvLineReport.
func newLineReport(cfg *runner.Config) (*lineReport, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	cfg.Env = append(cfg.Env, EnvLineReport+"="+strconv.Itoa(3+len(cfg.ExtraFiles)))
	cfg.ExtraFiles = append(cfg.ExtraFiles, w)
	return &lineReport{r: r, w: w}, nil
}

// read closes this process's write end (the line has ended) and returns
// the ids reported: nil when none was. A process the line left in the
// background may still hold the write end: what is in the pipe already is
// read, without waiting for it.
func (l *lineReport) read() []int64 {
	l.w.Close()
	defer l.r.Close()
	l.r.SetReadDeadline(time.Now().Add(50 * time.Millisecond))
	var ids []int64
	sc := bufio.NewScanner(l.r)
	for sc.Scan() {
		id, err := strconv.ParseInt(strings.TrimSpace(sc.Text()), 10, 64)
		if err != nil || id < 0 {
			return nil // not catchup's word: go by the ledger alone
		}
		ids = append(ids, id)
	}
	return ids
}
