package catchup

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/catchup/catchup/catchup/notify"
	"github.com/catchup/catchup/internal/filetrust"
	"github.com/catchup/catchup/store"
)

// A scan records the slots it gives up expired long before it alerts them
// (after the task's replays): a scan killed in between (a power cut) would
// leave them settled and never alerted. So, before the first expiry is
// committed, the scan keeps its alert owed: a file in the ledger's private
// lock directory, synced, that it removes once the alert has run. The next
// scan of this host finds the files of scans that are gone, and runs their
// alerts for the slots the ledger holds expired by them (payOwedAlerts):
// at least once (a kill between an alert and its file's removal repeats
// it), never lost. A file cut short by a kill was never followed by a
// commit (it is synced before it): it owes nothing.

// owedAlertPrefix and owedAlertSuffix frame an owed alert's file name,
// PREFIX+PID.SEQ+SUFFIX: it cannot be a task's lock file, since a task
// name never starts with a dot.
const (
	owedAlertPrefix = ".alert-owed."
	owedAlertSuffix = ".json"
)

// owedAlert is the alert a scan owes for the expiries it is about to
// record: who records them (host, boot, pid: their records say so too),
// the command the alert runs, and the slots with their causes.
type owedAlert struct {
	Task   string `json:"task"`
	Cmd    string `json:"cmd"`
	Policy string `json:"policy"`
	Host   string `json:"host"`
	BootID string `json:"boot_id"`
	PID    int    `json:"pid"`
	// Registered is when the task the scan read was registered (Unix
	// seconds; 0 in a file of an older catchup): a task found registered
	// later is a new one, its records of the slots deleted with the old.
	Registered int64 `json:"registered,omitempty"`
	// Dir is where the alert runs (alertRunsIn): the task's directory for
	// its own command, the owing process's for one given to it; "" in a
	// file of an older catchup (the payer then decides: owedAlertDir).
	Dir string `json:"dir,omitempty"`
	// Run, when set, makes this the failure alert of a fire (or replay)
	// that ended before its --notify-cmd ran (oweRunAlert): no slots.
	Run    *owedRun `json:"run,omitempty"`
	Slots  []int64  `json:"slots"`  // Unix seconds, as planned: not all may be recorded
	Causes []string `json:"causes"` // in step with Slots
}

// owedAlertFile is where an owed alert is kept until it is paid; nil for
// none (nothing owed, or it could not be kept).
type owedAlertFile struct{ path string }

// owedAlertSeq tells apart the owed alerts of one process.
var owedAlertSeq atomic.Int64

// oweAlert keeps the alert of task t's expiries ex (with their causes)
// owed, synced, before they are recorded: cmd is the command the alert
// runs ("" none: nothing is owed; nor in a dry run, which records
// nothing); at is the task as its alert runs (givenAlertAt), whose
// directory (taskAlertDir) is kept, so that its payer runs it there too.
// A file that cannot be kept is said, and the expiries are recorded
// anyway: their alert then rests on this process alone, as before.
func oweAlert(m Machine, cmd string, t, at store.Task, policy string, ex []expirySpan, dry bool) *owedAlertFile {
	n := expiryCount(ex)
	if dry || cmd == "" || n == 0 || m.LockDir == "" {
		return nil
	}
	task := t.Name
	a := owedAlert{Task: task, Cmd: cmd, Policy: policy, Host: m.Host, BootID: m.BootID, PID: m.PID,
		Dir: alertRunsIn(taskAlertDir(m, at))}
	if !t.RegisteredAt.IsZero() {
		a.Registered = t.RegisteredAt.Unix()
	}
	path, err := keepOwedAlert(m, func(w *bufio.Writer) error { return writeOwedAlert(w, a, ex) })
	if err != nil {
		err = m.lockDirError(err)
		m.notice("cannot keep task %s's alert owed (%v): if this process ends before its alert runs, no later scan sends it", task, err)
		return nil
	}
	return &owedAlertFile{path: path}
}

// keepOwedAlert writes an alert (write) to a new file of its own in the
// lock directory, synced with its directory entry, and returns its path.
func keepOwedAlert(m Machine, write func(*bufio.Writer) error) (string, error) {
	if err := lockDir(m.LockDir, m.UID, true); err != nil {
		return "", err
	}
	for {
		name := owedAlertPrefix + strconv.Itoa(m.PID) + "." + strconv.FormatInt(owedAlertSeq.Add(1), 10) + owedAlertSuffix
		path := filepath.Join(m.LockDir, name)
		holdOwed(path) // before it exists: no scan of this process takes it half written
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW, 0o600)
		if errors.Is(err, os.ErrExist) {
			releaseOwed(path) // an earlier boot's process of this pid left it: the next scan pays it
			continue
		}
		if err != nil {
			releaseOwed(path)
			return "", err
		}
		w := bufio.NewWriter(f)
		if err = write(w); err == nil {
			err = w.Flush()
		}
		if err == nil {
			err = f.Sync()
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err == nil {
			err = syncDir(m.LockDir)
		}
		if err != nil {
			os.Remove(path)
			releaseOwed(path)
			return "", err
		}
		return path, nil
	}
}

// syncDir makes the entries of directory dir durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}

// paid removes the owed alert, once the alert it stands for has run. Not
// synced: a power cut that brings it back repeats the alert, never loses it.
func (o *owedAlertFile) paid(m Machine) {
	if o == nil {
		return
	}
	if err := os.Remove(o.path); err != nil && !errors.Is(err, os.ErrNotExist) {
		m.notice("cannot remove the alert owed %s, which has run (%v): the next scan sends it again", o.path, err)
	}
	releaseOwed(o.path)
}

// paidUnlessStopped removes the owed alert once its alert has run (paid),
// unless catchup is being stopped (ctx done) and the alert failed (alertErr):
// its command died of the stop forwarded to it, or was cut short by
// stoppedAlertBound. It then stays owed to the next scan, as one a payer
// was stopped paying does (payOwedAlerts): never removed unsent.
func (o *owedAlertFile) paidUnlessStopped(ctx context.Context, m Machine, task string, alertErr error) {
	if o != nil && stoppedInAlert(ctx, alertErr) {
		m.notice("task %s: stopped while it alerted the slots it recorded expired: the next scan alerts them", task)
		o.release()
		return
	}
	o.paid(m)
}

// stoppedInAlert reports whether an alert that ended alertErr was cut
// short by catchup's stop: it stays owed (paidUnlessStopped).
func stoppedInAlert(ctx context.Context, alertErr error) bool {
	return alertErr != nil && (ctx.Err() != nil || errors.Is(alertErr, notify.ErrCutShort))
}

// owedAlertFiles lists the owed alerts in the lock directory that nothing
// is paying: those of scans that are gone (takerGone: the pid is gone, or
// was reused since), and those of this process that none of its scans
// holds (ownOwedPayable: a daemon's).
func owedAlertFiles(m Machine) []string {
	found, _ := filepath.Glob(filepath.Join(m.LockDir, owedAlertPrefix+"*"+owedAlertSuffix))
	var out []string
	for _, path := range found {
		name := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(path), owedAlertPrefix), owedAlertSuffix)
		p, _, ok := strings.Cut(name, ".")
		pid, err := strconv.Atoi(p)
		if !ok || err != nil || pid <= 0 {
			continue // not an owed alert
		}
		if payable, own := ownOwedPayable(pid, path); own && !payable || !own && !takerGone(pid, path) {
			continue // its scan may still send it
		}
		out = append(out, path)
	}
	return out
}

// readOwedAlert reads the owed alert at path, a file that only uid may
// have written (its command is run): a regular file of uid's, writable by
// no one else, never through a symlink.
func readOwedAlert(path string, uid int) (owedAlert, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return owedAlert{}, err
	}
	defer f.Close()
	return decodeOwedAlert(f, path, uid, 0)
}

// decodeOwedAlert reads the owed alert of file f (opened without following
// a symlink), at path, as readOwedAlert does.
func decodeOwedAlert(f *os.File, path string, uid int, maxSize int64) (owedAlert, error) {
	fi, err := f.Stat()
	if err == nil && !fi.Mode().IsRegular() {
		err = &filetrust.Refusal{Name: "alert owed " + path, Reason: "it is not a regular file", Fix: "remove it if you did not put it there"}
	}
	if err == nil && maxSize > 0 && fi.Size() > maxSize {
		err = &filetrust.Refusal{Name: "alert owed " + path, Reason: fmt.Sprintf("it is larger than a fire's ever is (%d bytes)", maxSize),
			Fix: "remove it if you did not put it there"}
	}
	if err == nil {
		err = filetrust.Private("alert owed "+path, path, fi, uid)
	}
	if err != nil {
		return owedAlert{}, err
	}
	var a owedAlert
	var r io.Reader = f
	if maxSize > 0 {
		r = io.LimitReader(f, maxSize) // grown while read: cut short, torn
	}
	if err := json.NewDecoder(r).Decode(&a); err != nil {
		return owedAlert{}, fmt.Errorf("%w: %w", errOwedAlertTorn, err)
	}
	if a.Task == "" || len(a.Causes) != len(a.Slots) {
		return owedAlert{}, fmt.Errorf("%w: no task, or its slots and causes out of step", errOwedAlertTorn)
	}
	return a, nil
}

// errOwedAlertTorn marks an owed alert that does not read whole: a scan
// killed while it wrote it, before any expiry was recorded.
var errOwedAlertTorn = errors.New("cut short")

// slotSet is the set of slots (Unix seconds) of an owed alert, with each
// one's cause.
func (a owedAlert) slotSet() (map[int64]string, time.Time, time.Time) {
	set := make(map[int64]string, len(a.Slots))
	var first, last int64
	for i, s := range a.Slots {
		set[s] = a.Causes[i]
		if i == 0 || s < first {
			first = s
		}
		if i == 0 || s > last {
			last = s
		}
	}
	return set, time.Unix(first, 0).UTC(), time.Unix(last, 0).UTC()
}
