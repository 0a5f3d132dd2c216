package cmd

import (
	"testing"
	"time"

	"github.com/catchup/catchup/catchup"
)

// TestReplayPausedMessage: what resume --replay-paused says of the next
// scan, under each replay policy, with the slots it records expired (older
// than the window, beyond --max-replays) and a prune floor.
func TestReplayPausedMessage(t *testing.T) {
	at := func(s string) time.Time {
		v, err := time.Parse(time.RFC3339, s)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	floor := catchup.PauseResult{Unsettled: 5, PruneFloor: at("2026-11-03T02:00:00Z"),
		PausedAt: at("2026-11-01T03:00:00Z"), PausedThrough: at("2026-11-03T02:00:00Z")}
	for name, tc := range map[string]struct {
		res  catchup.PauseResult
		want string
	}{
		"all, older than the window and beyond --max-replays": {
			res: catchup.PauseResult{Unsettled: 130, Beyond: catchup.BeyondWindow{Policy: "all", Window: 7 * 24 * time.Hour,
				Count: 4, First: at("2026-11-01T03:00:00Z"), Last: at("2026-11-01T06:00:00Z"),
				Dropped: 26, MaxReplays: 100, DroppedFirst: at("2026-11-01T07:00:00Z"), DroppedLast: at("2026-11-02T08:00:00Z")}},
			want: "resumed task T; the next scan replays the slots of its pause (130 recorded paused), but for " +
				"4 older than its catch-up window (7d) (2026-11-01T03:00:00Z to 2026-11-01T06:00:00Z) and " +
				"26 beyond scan's --max-replays (100) (2026-11-01T07:00:00Z to 2026-11-02T08:00:00Z), which it records expired; " +
				"to run them: catchup backfill --task T --from 2026-11-01T03:00:00Z --to 2026-11-02T08:00:00Z --include-paused",
		},
		"latest, its latest missed slot not the pause's": {
			res: catchup.PauseResult{Unsettled: 2, Beyond: catchup.BeyondWindow{Policy: "latest", Latest: at("2026-11-05T02:00:00Z"),
				Dropped: 2, DroppedFirst: at("2026-11-02T02:00:00Z"), DroppedLast: at("2026-11-03T02:00:00Z")}},
			want: `resumed task T; the next scan replays none of the slots of its pause (2 recorded paused): under its replay policy "latest" ` +
				"it replays only the task's latest missed slot, 2026-11-05T02:00:00Z, and records 2 of them expired " +
				"(2026-11-02T02:00:00Z to 2026-11-03T02:00:00Z), dropped by the policy; to replay them all: catchup scan --task T --replay all",
		},
		"latest, one other slot of the pause dropped": {
			res: catchup.PauseResult{Unsettled: 2, Beyond: catchup.BeyondWindow{Policy: "latest", Latest: at("2026-03-10T10:00:00Z"),
				LatestPaused: true, Dropped: 1, DroppedFirst: at("2026-03-09T10:00:00Z"), DroppedLast: at("2026-03-09T10:00:00Z")}},
			want: "resumed task T; the next scan replays only the latest slot of its pause (2 recorded paused), 2026-03-10T10:00:00Z, " +
				`under its replay policy "latest", and records the other expired (2026-03-09T10:00:00Z), dropped by the policy; ` +
				"to replay them all: catchup scan --task T --replay all",
		},
		"none, with a prune floor": {
			res: func() catchup.PauseResult {
				r := floor
				r.Beyond = catchup.BeyondWindow{Policy: "none", Window: 7 * 24 * time.Hour, Stay: 3}
				return r
			}(),
			want: "resumed task T; the next scan replays none of the slots of its pause after 2026-11-03T02:00:00Z (5 recorded paused), " +
				`under its replay policy "none": they stay missed (catchup ls --missed) until older than its catch-up window (7d), ` +
				"then it records them expired; to replay them: catchup scan --task T --replay all; prune took runs of the slots of its pause " +
				"up to 2026-11-03T02:00:00Z, which stay as they are; to run them: catchup backfill --task T --from 2026-11-01T03:00:00Z " +
				"--to 2026-11-03T02:00:00Z --include-paused",
		},
		"all, every slot older than the window": {
			res: catchup.PauseResult{Unsettled: 3, Beyond: catchup.BeyondWindow{Policy: "all", Window: 48 * time.Hour,
				Count: 3, First: at("2026-03-02T10:00:00Z"), Last: at("2026-03-04T10:00:00Z"), MaxReplays: 100}},
			want: "resumed task T; the next scan replays none of the slots of its pause (3 recorded paused): " +
				"it records them all expired, 3 older than its catch-up window (2d) (2026-03-02T10:00:00Z to 2026-03-04T10:00:00Z); " +
				"to run them: catchup backfill --task T --from 2026-03-02T10:00:00Z --to 2026-03-04T10:00:00Z --include-paused",
		},
		"all, every slot older than the window or beyond --max-replays": {
			res: catchup.PauseResult{Unsettled: 130, Beyond: catchup.BeyondWindow{Policy: "all", Window: 7 * 24 * time.Hour,
				Count: 4, First: at("2026-11-01T03:00:00Z"), Last: at("2026-11-01T06:00:00Z"),
				Dropped: 126, MaxReplays: 100, DroppedFirst: at("2026-11-01T07:00:00Z"), DroppedLast: at("2026-11-06T12:00:00Z")}},
			want: "resumed task T; the next scan replays none of the slots of its pause (130 recorded paused): " +
				"it records them all expired, 4 older than its catch-up window (7d) (2026-11-01T03:00:00Z to 2026-11-01T06:00:00Z) and " +
				"126 beyond scan's --max-replays (100) (2026-11-01T07:00:00Z to 2026-11-06T12:00:00Z); " +
				"to run them: catchup backfill --task T --from 2026-11-01T03:00:00Z --to 2026-11-06T12:00:00Z --include-paused",
		},
		"none, every slot older than the window": {
			res: catchup.PauseResult{Unsettled: 3, Beyond: catchup.BeyondWindow{Policy: "none", Window: 48 * time.Hour,
				Count: 3, First: at("2026-03-02T10:00:00Z"), Last: at("2026-03-04T10:00:00Z")}},
			want: "resumed task T; the next scan replays none of the slots of its pause (3 recorded paused): " +
				"it records them all expired, 3 older than its catch-up window (2d) (2026-03-02T10:00:00Z to 2026-03-04T10:00:00Z); " +
				"to run them: catchup backfill --task T --from 2026-03-02T10:00:00Z --to 2026-03-04T10:00:00Z --include-paused",
		},
		"coalesce, every slot older than the window": {
			res: catchup.PauseResult{Unsettled: 3, Beyond: catchup.BeyondWindow{Policy: "coalesce", Window: 48 * time.Hour,
				Count: 3, First: at("2026-03-02T10:00:00Z"), Last: at("2026-03-04T10:00:00Z")}},
			want: "resumed task T; the next scan replays none of the slots of its pause (3 recorded paused): " +
				"it records them all expired, 3 older than its catch-up window (2d) (2026-03-02T10:00:00Z to 2026-03-04T10:00:00Z); " +
				"to run them: catchup backfill --task T --from 2026-03-02T10:00:00Z --to 2026-03-04T10:00:00Z --include-paused",
		},
		"none, all expired, with a prune floor": {
			res: func() catchup.PauseResult {
				r := floor
				r.Beyond = catchup.BeyondWindow{Policy: "none", Window: 24 * time.Hour, Count: 5,
					First: at("2026-11-03T03:00:00Z"), Last: at("2026-11-03T07:00:00Z")}
				return r
			}(),
			want: "resumed task T; the next scan replays none of the slots of its pause after 2026-11-03T02:00:00Z (5 recorded paused): " +
				"it records them all expired, 5 older than its catch-up window (1d) (2026-11-03T03:00:00Z to 2026-11-03T07:00:00Z); " +
				"prune took runs of the slots of its pause up to 2026-11-03T02:00:00Z, which stay as they are; " +
				"to run them all: catchup backfill --task T --from 2026-11-01T03:00:00Z --to 2026-11-03T07:00:00Z --include-paused",
		},
		"all, with a prune floor (as before)": {
			res: func() catchup.PauseResult { r := floor; r.Beyond.Policy = "all"; return r }(),
			want: "resumed task T; the next scan replays the slots of its pause after 2026-11-03T02:00:00Z (5 recorded paused): " +
				"prune took runs of the slots up to it, which stay as they are; to run them: catchup backfill --task T " +
				"--from 2026-11-01T03:00:00Z --to 2026-11-03T02:00:00Z --include-paused",
		},
	} {
		t.Run(name, func(t *testing.T) {
			if got := replayPausedMessage("T", tc.res); got != tc.want {
				t.Errorf("got\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
}
