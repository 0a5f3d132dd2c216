package schedule

import (
	"testing"
	"time"
)

func BenchmarkSlotsEveryMinute30Days(b *testing.B) {
	s := mustParse(b, "* * * * *", mustZone(b, "Europe/Berlin"))
	from := time.Date(2024, 10, 1, 0, 0, 0, 0, time.UTC)
	to := from.AddDate(0, 0, 30)
	b.ReportAllocs()
	for b.Loop() {
		n := 0
		s.Slots(from, to, func(time.Time) bool { n++; return true })
		if n != 43200 {
			b.Fatalf("%d slots", n)
		}
	}
}

func BenchmarkSlotsDaily10Years(b *testing.B) {
	s := mustParse(b, "30 2 * * *", mustZone(b, "Europe/Berlin"))
	from := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	to := from.AddDate(10, 0, 0)
	b.ReportAllocs()
	for b.Loop() {
		n := 0
		s.Slots(from, to, func(time.Time) bool { n++; return true })
		if n != 3653 {
			b.Fatalf("%d slots", n)
		}
	}
}

func BenchmarkPrev(b *testing.B) {
	loc := mustZone(b, "Europe/Berlin")
	now := time.Date(2024, 10, 27, 1, 6, 0, 0, time.UTC)
	for _, expr := range []string{"* * * * *", "0 * * * *", "30 2 * * *", "@yearly", "0 2 29 2 *"} {
		s := mustParse(b, expr, loc)
		b.Run(expr, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, ok := s.Prev(now); !ok {
					b.Fatal("no slot")
				}
			}
		})
	}
}
