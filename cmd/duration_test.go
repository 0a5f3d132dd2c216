package cmd

import (
	"testing"
	"time"

	"github.com/catchup/catchup/catchup"
)

func TestParseDuration(t *testing.T) {
	tests := map[string]struct {
		in      string
		want    time.Duration
		wantErr bool
	}{
		"go syntax":       {in: "90s", want: 90 * time.Second},
		"days":            {in: "7d", want: 7 * 24 * time.Hour},
		"days and hours":  {in: "1d12h", want: 36 * time.Hour},
		"zero":            {in: "0", want: 0},
		"negative go":     {in: "-5m", want: -5 * time.Minute},
		"no number":       {in: "d", wantErr: true},
		"negative days":   {in: "-1d", wantErr: true},
		"fraction of day": {in: "1.5d", wantErr: true},
		"garbage":         {in: "soon", wantErr: true},
		"days then junk":  {in: "2dx", wantErr: true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got, err := parseDuration(tc.in)
			if (err != nil) != tc.wantErr || (!tc.wantErr && got != tc.want) {
				t.Fatalf("parseDuration(%q) = %v, %v; want %v, error %v", tc.in, got, err, tc.want, tc.wantErr)
			}
		})
	}
}

func FuzzParseDuration(f *testing.F) {
	for _, s := range []string{"7d", "1d12h", "90s", "d", "-1d", "999999d", "1d-5m", "1d2562047h", "2562048h"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := parseDuration(s)
		if err == nil && len(s) > 0 && s[0] != '-' && d < 0 {
			t.Fatalf("parseDuration(%q) = %v: negative from a positive spelling", s, d)
		}
		if err == nil {
			if back, err := parseDuration(catchup.FormatDuration(d)); err != nil || back != d {
				t.Fatalf("round trip of %v via %q: %v, %v", d, catchup.FormatDuration(d), back, err)
			}
		}
	})
}
