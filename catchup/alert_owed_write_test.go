package catchup

import (
	"bufio"
	"bytes"
	"encoding/json"
	"testing"
	"time"
)

// TestWriteOwedAlertIsItsMarshal: an owed alert written a slot at a time
// from its spans is the document json.Marshal makes of it filled in.
func TestWriteOwedAlertIsItsMarshal(t *testing.T) {
	t.Parallel()
	at := func(h int) time.Time { return time.Date(2026, 3, 1, h, 0, 0, 0, time.FixedZone("x", 3600)) }
	tests := map[string][]expirySpan{
		"one slot":      {{slots: []time.Time{at(1)}, causes: []string{"host-down"}}},
		"spans, causes": {{slots: []time.Time{at(1), at(2)}, causes: []string{"host-down", "not-fired"}}, {}, {slots: []time.Time{at(5)}, causes: []string{"not-fired"}}},
		"causes short":  {{slots: []time.Time{at(1), at(2), at(3)}, causes: []string{"clock"}}},
		"causes odd":    {{slots: []time.Time{at(1), at(2)}, causes: []string{"<a & b>", "\"q\"\u2028"}}},
	}
	for name, ex := range tests {
		t.Run(name, func(t *testing.T) {
			a := owedAlert{Task: "j<&>", Cmd: "notify --to 'a&b' <x>", Policy: "all", Host: "h", BootID: "b", PID: 42}
			var got bytes.Buffer
			w := bufio.NewWriter(&got)
			if err := writeOwedAlert(w, a, ex); err != nil {
				t.Fatal(err)
			}
			w.Flush()
			a.Slots, a.Causes = []int64{}, []string{}
			for _, e := range ex {
				for i, s := range e.slots {
					a.Slots, a.Causes = append(a.Slots, s.Unix()), append(a.Causes, e.cause(i))
				}
			}
			want, err := json.Marshal(a)
			if err != nil {
				t.Fatal(err)
			}
			if got.String() != string(want) {
				t.Errorf("written:\n%s\nwant json.Marshal's:\n%s", got.String(), want)
			}
		})
	}
}
