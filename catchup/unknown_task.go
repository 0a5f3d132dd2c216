package catchup

import (
	"fmt"

	"github.com/catchup/catchup/catchup/taskname"
	"github.com/catchup/catchup/store"
)

// UnknownTask is the error of every command given a task the ledger does
// not hold, in one wording (exit status 2); errors.Is finds
// store.ErrNotFound in it.
func UnknownTask(name string) error { return unknownTaskError(name) }

type unknownTaskError string

func (e unknownTaskError) Error() string {
	return fmt.Sprintf("no task %s in the ledger; catchup ls lists them", taskname.Quoted(string(e)))
}

func (e unknownTaskError) Unwrap() error { return store.ErrNotFound }
