package postgres

import (
	"context"
	"testing"
	"time"

	"github.com/catchup/catchup/store"
	"github.com/catchup/catchup/store/internal/storetest"
)

// TestServerNowReadByTheOpenAndEachClaim: the server's clock comes with
// the open's first statement and with each granted claim's insert (no
// statement of its own), and is carried forward from there: on a server
// of this host, it reads this host's clock within a second.
func TestServerNowReadByTheOpenAndEachClaim(t *testing.T) {
	p, err := Open(context.Background(), storetest.PostgresLedger(t))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	near := func(when string) {
		t.Helper()
		at, ok := p.ServerNow()
		if !ok {
			t.Fatalf("%s: no server clock read", when)
		}
		if off := time.Since(at); off.Abs() > time.Second {
			t.Errorf("%s: the server's clock reads %v off this host's, want within 1s (one machine)", when, off)
		}
	}
	near("after the open")
	p.clock.saw(time.Time{}) // forgotten: only the claim can read it again
	if _, ok := p.ServerNow(); ok {
		t.Fatal("a server clock forgotten still reads")
	}
	storetest.MustClaim(t, p, store.Run{Task: "t", Trigger: store.TriggerManual, StartedAt: storetest.T0, Host: "h"})
	near("after a claim")
}
