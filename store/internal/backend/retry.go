package backend

import "github.com/catchup/catchup/store"

// RetryStartsSQL is the reason column of a run whose retry delay is over
// (SetStarted) or that gets an outcome without a reason (Finish):
// store.RetryStarts in SQL.
const RetryStartsSQL = `CASE WHEN reason = '` + store.ReasonRetryDelay + `' THEN '' WHEN reason = '` +
	store.ReasonByHandRetryDelay + `' THEN '` + store.ReasonByHand + `' ELSE reason END`

// RetryCutSQL is the reason column of a run Interrupt marks: a retry found
// dead in its delay (store.InRetryDelay) is cut in it, store.ReasonRetryCut.
const RetryCutSQL = `CASE WHEN reason IN ('` + store.ReasonRetryDelay + `', '` + store.ReasonByHandRetryDelay +
	`') THEN '` + store.ReasonRetryCut + `' ELSE reason END`

// NotRetryCutSQL is the condition, on a runs row, that it is not a retry
// cut in its delay (store.ReasonRetryCut: stopped, or found dead, before its
// command started), which ran nothing: its failed attempt's outcome stands,
// and so does when that failure ended (store.Store.LastFailures). Added to
// FailedSQL it leaves the index runs_task_failure_end usable: a MAX read
// backwards from its range's end stops at the first row it keeps, and a cut
// retry ends after its own failed attempt, so at most about one is passed.
const NotRetryCutSQL = `(status <> 'interrupted' OR reason <> '` + store.ReasonRetryCut + `')`
