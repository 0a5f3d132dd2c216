package catchup

import (
	"errors"
	"io/fs"
	"testing"
)

func TestJoinErrors(t *testing.T) {
	t.Parallel()
	a, b := errors.New("a failed"), fs.ErrPermission
	for name, c := range map[string]struct {
		in   []error
		want string
	}{
		"none":            {in: []error{nil, nil}},
		"one":             {in: []error{nil, a}, want: "a failed"},
		"two on one line": {in: []error{a, nil, b}, want: "a failed; permission denied"},
	} {
		t.Run(name, func(t *testing.T) {
			err := JoinErrors(c.in...)
			if c.want == "" {
				if err != nil {
					t.Fatalf("JoinErrors = %v, want nil", err)
				}
				return
			}
			if err == nil || err.Error() != c.want {
				t.Fatalf("JoinErrors = %v, want %q", err, c.want)
			}
			if !errors.Is(err, a) {
				t.Errorf("errors.Is(%v, a) = false", err)
			}
		})
	}
	if err := JoinErrors(a, b); !errors.Is(err, fs.ErrPermission) {
		t.Errorf("errors.Is(%v, fs.ErrPermission) = false", err)
	}
}
