package duration

import (
	"errors"
	"math"
	"testing"
	"time"
)

func TestParse(t *testing.T) {
	tests := map[string]struct {
		in      string
		want    time.Duration
		wantErr error // nil with tooLong false: no error
		tooLong bool
	}{
		"days":                      {in: "7d", want: 7 * 24 * time.Hour},
		"days and hours":            {in: "1d12h", want: 36 * time.Hour},
		"go syntax":                 {in: "90s", want: 90 * time.Second},
		"the most days":             {in: "106751d", want: Max},
		"days past the most":        {in: "106752d", tooLong: true},
		"days past uint16":          {in: "65536d", want: 65536 * 24 * time.Hour},
		"days far past the most":    {in: "99999999999999999999d", tooLong: true},
		"days plus hours overflow":  {in: "1d2562047h", tooLong: true},
		"days plus hours past most": {in: "106751d1h", tooLong: true},
		"hours past the most":       {in: "2562048h", tooLong: true},
		"hours overflow int64":      {in: "9999999999h", tooLong: true},
		"minutes and hours":         {in: "2562047h100000m", tooLong: true},
		"the most in hours":         {in: "2562024h", want: Max},
		"negative stays negative":   {in: "-5m", want: -5 * time.Minute},
		"negative overflow invalid": {in: "-9999999999h", wantErr: errAny},
		"garbage":                   {in: "soon", wantErr: errAny},
		"days then garbage":         {in: "2dx", wantErr: errAny},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got, err := Parse(tc.in)
			switch {
			case tc.tooLong:
				if !errors.Is(err, ErrTooLong) {
					t.Fatalf("Parse(%q) = %v, %v; want ErrTooLong", tc.in, got, err)
				}
			case tc.wantErr != nil:
				if err == nil || errors.Is(err, ErrTooLong) {
					t.Fatalf("Parse(%q) = %v, %v; want an invalid duration", tc.in, got, err)
				}
			case err != nil || got != tc.want:
				t.Fatalf("Parse(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
			}
		})
	}
}

var errAny = errors.New("any error")

func FuzzParse(f *testing.F) {
	for _, s := range []string{"7d", "1d2562047h", "106751d", "106752d", "9999999999h", "2562047h47m16.854775807s", "1d-5m", "+1d"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := Parse(s)
		switch {
		case err == nil && (d > Max || d < -math.MaxInt64):
			t.Fatalf("Parse(%q) = %v: past Max", s, d)
		case err == nil && len(s) > 0 && s[0] != '-' && d < 0:
			t.Fatalf("Parse(%q) = %v: negative from a positive spelling (an overflow)", s, d)
		}
	})
}
