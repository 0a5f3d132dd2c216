package catchup

import (
	"fmt"

	"github.com/catchup/catchup/catchup/redact"
	"github.com/catchup/catchup/catchup/taskname"
	"github.com/catchup/catchup/store"
)

// UnknownTask is the error of every command given a task the ledger does
// not hold, in one wording (exit status 2); errors.Is finds
// store.ErrNotFound in it. A name with a secret's shape (PGPASSWORD=X, a
// URL's password: a secret given as a task by mistake) is quoted masked.
func UnknownTask(name string) error { return unknownTaskError(name) }

type unknownTaskError string

func (e unknownTaskError) Error() string {
	return fmt.Sprintf("no task %s in the ledger; catchup ls lists them", taskname.Quoted(redact.Value(string(e))))
}

func (e unknownTaskError) Unwrap() error { return store.ErrNotFound }
