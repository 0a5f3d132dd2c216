package cmd

import "github.com/catchup/catchup/catchup"

// lifecycleStatus is what ls shows in STATUS for a retired or paused task
// instead of its latest run's status.
func lifecycleStatus(t catchup.TaskStatus, status string) string {
	switch {
	case !t.Task.RetiredAt.IsZero():
		return "retired"
	case t.Paused:
		return "paused"
	}
	return status
}
