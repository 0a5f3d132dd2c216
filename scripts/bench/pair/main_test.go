package main

import (
	"strings"
	"testing"
)

func TestQuantile(t *testing.T) {
	tests := map[string]struct {
		v    []float64
		q    float64
		want float64
	}{
		"median of odd":         {[]float64{3, 1, 2}, .5, 2},
		"median of even":        {[]float64{4, 1, 3, 2}, .5, 2.5},
		"first quartile":        {[]float64{1, 2, 3, 4, 5}, .25, 2},
		"interpolated quartile": {[]float64{1, 2, 3, 4}, .25, 1.75},
		"one value":             {[]float64{7}, .75, 7},
		"max":                   {[]float64{5, 9, 1}, 1, 9},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if got := quantile(tc.v, tc.q); got != tc.want {
				t.Errorf("quantile(%v, %v) = %v, want %v", tc.v, tc.q, got, tc.want)
			}
		})
	}
}

func TestCommands(t *testing.T) {
	tests := map[string]struct {
		args    []string
		a, b    []string
		wantErr string
	}{
		"a alone":   {args: []string{"true", "x"}, a: []string{"true", "x"}},
		"a vs b":    {args: []string{"true", "--vs", "false", "y"}, a: []string{"true"}, b: []string{"false", "y"}},
		"empty b":   {args: []string{"true", "--vs"}, wantErr: "--vs needs a command"},
		"empty a":   {args: []string{"--vs", "true"}, wantErr: "usage"},
		"not found": {args: []string{"no-such-command-xyz"}, wantErr: "not found"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			a, b, err := commands(tc.args)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if strings.Join(a.argv, " ") != strings.Join(tc.a, " ") {
				t.Errorf("a = %q, want %q", a.argv, tc.a)
			}
			if (b == nil) != (tc.b == nil) || (b != nil && strings.Join(b.argv, " ") != strings.Join(tc.b, " ")) {
				t.Errorf("b = %v, want %q", b, tc.b)
			}
		})
	}
}

// A run that exits otherwise than expected fails the measurement: a
// command that crashed early must not look fast.
func TestOnceChecksTheExitStatus(t *testing.T) {
	tests := map[string]struct {
		argv    []string
		code    int
		wantErr bool
	}{
		"true, want 0":  {[]string{"true"}, 0, false},
		"false, want 0": {[]string{"false"}, 0, true},
		"false, want 1": {[]string{"false"}, 1, false},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			c, err := resolve(tc.argv)
			if err != nil {
				t.Fatal(err)
			}
			c.code = tc.code
			s, err := once(c)
			if (err != nil) != tc.wantErr {
				t.Fatalf("err = %v, want error: %v", err, tc.wantErr)
			}
			if err == nil && (s.wall <= 0 || s.rssKiB <= 0) {
				t.Errorf("sample = %+v, want a wall time and a peak RSS", s)
			}
		})
	}
}
