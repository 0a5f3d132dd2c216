package main

import (
	"reflect"
	"testing"
)

func blocks(bs ...string) map[string]bool {
	m := map[string]bool{}
	for _, b := range bs {
		m[b] = true
	}
	return m
}

func TestCover(t *testing.T) {
	runs := map[string]map[string]bool{
		"wide":    blocks("a", "b", "c", "d"),
		"narrow":  blocks("a"),
		"rare":    blocks("e"),
		"second":  blocks("a", "b"),
		"nothing": blocks(),
	}
	for name, tc := range map[string]struct {
		k    int
		pins []string
		want []string
	}{
		"each block once: the widest, then what it leaves": {k: 1, want: []string{"rare", "wide"}},
		"twice: a and b again, c and d have no second":     {k: 2, want: []string{"rare", "second", "wide"}},
		"three times: a's third run too, e has one":        {k: 3, want: []string{"narrow", "rare", "second", "wide"}},
		"pinned first, the rest around it":                 {k: 1, pins: []string{"arr", "noth"}, want: []string{"narrow", "nothing", "rare", "wide"}},
		"a pin that names none changes nothing":            {k: 1, pins: []string{"zzz", ""}, want: []string{"rare", "wide"}},
	} {
		t.Run(name, func(t *testing.T) {
			want := map[string]int{}
			for _, bs := range runs {
				for b := range bs {
					want[b] = min(want[b]+1, tc.k)
				}
			}
			if got := cover(runs, want, tc.pins); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("cover(k=%d) = %v, want %v", tc.k, got, tc.want)
			}
		})
	}
}
