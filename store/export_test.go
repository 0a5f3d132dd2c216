package store_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/catchup/catchup/store"
	"github.com/catchup/catchup/store/ledger"
	"github.com/catchup/catchup/store/postgres"
	"github.com/catchup/catchup/store/sqlite"
)

// exporter is what `catchup migrate` reads a ledger with; both backends
// have it, outside the Store interface.
type exporter interface {
	ExportRuns(ctx context.Context, afterID int64, limit int) ([]store.Run, error)
}

var (
	_ exporter    = (*sqlite.Ledger)(nil)
	_ exporter    = (*postgres.Ledger)(nil)
	_ store.Store = (*sqlite.Ledger)(nil)
	_ store.Store = (*postgres.Ledger)(nil)
)

func TestExportRuns(t *testing.T) {
	forEachBackend(t, func(t *testing.T, be backend) {
		s := be.fresh(t)
		ctx := t.Context()
		var want []store.Run
		for i := range 7 {
			r := store.Run{Task: "backup", Trigger: store.TriggerManual, StartedAt: t0.Add(time.Duration(i) * time.Minute),
				Host: "h", PID: i, BootID: "b"}
			if i%2 == 0 {
				r.Slot, r.Trigger = t0.Add(time.Duration(i)*time.Hour), store.TriggerSchedule
			}
			id := mustClaim(t, s, r)
			if i != 6 {
				o := store.Outcome{Status: store.StatusFailed, ExitCode: intp(i), EndedAt: r.StartedAt.Add(time.Second),
					StdoutTail: []byte{byte(i), 0, 'x'}, StderrTail: []byte("err"), Error: "e"}
				if err := s.Finish(ctx, id, o); err != nil {
					t.Fatal(err)
				}
			}
			want = append(want, getRun(t, s, id))
		}
		ex := s.(exporter)
		var got []store.Run
		after := int64(0)
		for {
			page, err := ex.ExportRuns(ctx, after, 3)
			if err != nil {
				t.Fatalf("ExportRuns(%d, 3): %v", after, err)
			}
			if len(page) > 3 {
				t.Fatalf("ExportRuns(%d, 3) returned %d runs", after, len(page))
			}
			if len(page) == 0 {
				break
			}
			got = append(got, page...)
			after = page[len(page)-1].ID
		}
		if len(got) != len(want) {
			t.Fatalf("exported %d runs, want %d", len(got), len(want))
		}
		for i := range want {
			if !sameRun(got[i], want[i]) || len(got[i].StdoutTail) != len(want[i].StdoutTail) {
				t.Errorf("exported run %d\n got %+v\nwant %+v", i, got[i], want[i])
			}
		}
		if !slices.IsSortedFunc(got, func(a, b store.Run) int { return int(a.ID - b.ID) }) {
			t.Errorf("exported ids %v not ascending", ids(got))
		}
		all, err := ex.ExportRuns(ctx, 0, 0)
		if err != nil || len(all) != len(want) {
			t.Errorf("ExportRuns(0, 0) = %d runs, %v; want all %d", len(all), err, len(want))
		}
	})
}

// A finished record added directly holds its slot as a claimed one does
// when it succeeded, and not otherwise.
func TestAddRunHoldsSlot(t *testing.T) {
	forEachBackend(t, func(t *testing.T, be backend) {
		s := be.fresh(t)
		for i, status := range []string{store.StatusSucceeded, store.StatusSkipped, store.StatusFailed} {
			slot := t0.Add(time.Duration(i) * time.Hour)
			id, err := s.AddRun(t.Context(), store.Run{Task: "backup", Slot: slot, Trigger: store.TriggerSchedule,
				Status: status, StartedAt: slot, EndedAt: slot.Add(time.Second), Host: "elsewhere"})
			if err != nil {
				t.Fatal(err)
			}
			res := claim(t, s, store.ClaimRequest{Run: store.Run{Task: "backup", Slot: slot, Trigger: store.TriggerSchedule, StartedAt: slot}})
			if held := status == store.StatusSucceeded; res.Claimed == held || held && (res.Run.ID != id || res.Run.Host != "elsewhere") {
				t.Errorf("%s record: claim = %+v", status, res)
			}
		}
	})
}

func TestOpenPicksBackend(t *testing.T) {
	open := func(location string) (store.Store, error) { return openAt(t.Context(), location) }
	s, err := open(backends[0].ledger(t))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, ok := s.(*sqlite.Ledger); !ok || s.Shared() {
		t.Errorf("Open(path) = %T, Shared %v; want a local *sqlite.Ledger", s, s.Shared())
	}
	if _, err := open("postgres://nobody@127.0.0.1:1/x?connect_timeout=1"); !errors.Is(err, store.ErrLedgerUnreachable) {
		t.Errorf("Open(unreachable postgres) error %v, want ErrLedgerUnreachable", err)
	}
	if s, err := ledger.Open(t.Context(), store.Location{}); err == nil {
		s.Close()
		t.Error("Open(zero Location) succeeded")
	}
	p, err := open(pgLedger(t))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if _, ok := p.(*postgres.Ledger); !ok || !p.Shared() {
		t.Errorf("Open(postgres://) = %T, Shared %v; want a shared *postgres.Ledger", p, p.Shared())
	}
}
