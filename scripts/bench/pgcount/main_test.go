package main

import (
	"bytes"
	"encoding/binary"
	"io"
	"testing"
	"time"
)

// message is a typed frontend message with body.
func message(typ byte, body string) []byte {
	b := []byte{typ, 0, 0, 0, 0}
	binary.BigEndian.PutUint32(b[1:], uint32(4+len(body)))
	return append(b, body...)
}

func TestRelayCounts(t *testing.T) {
	startup := []byte{0, 0, 0, 12, 0, 3, 0, 0, 'u', 0, 'x', 0}
	tests := map[string]struct {
		msgs                   [][]byte
		statements, roundTrips int64
	}{
		"nothing after the startup": {},
		"a prepared statement, then run": {msgs: [][]byte{message('P', "q"), message('D', "S"), message('S', ""),
			message('B', "b"), message('E', "e"), message('S', "")}, statements: 1, roundTrips: 2},
		"two statements in one round trip": {msgs: [][]byte{message('B', "1"), message('E', "1"), message('B', "2"),
			message('E', "2"), message('S', "")}, statements: 2, roundTrips: 1},
		"a simple query": {msgs: [][]byte{message('Q', "SELECT 1\x00")}, statements: 1, roundTrips: 1},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			in := append([]byte{}, startup...)
			for _, m := range tc.msgs {
				in = append(in, m...)
			}
			var c counts
			var out bytes.Buffer
			if err := c.relay(bytes.NewReader(in), &out, time.Nanosecond); err != io.EOF {
				t.Fatalf("relay = %v, want io.EOF at the end of the client's messages", err)
			}
			if !bytes.Equal(out.Bytes(), in) {
				t.Errorf("relayed %q, want the client's bytes as they were %q", out.Bytes(), in)
			}
			if s, r := c.statements.Load(), c.roundTrips.Load(); s != tc.statements || r != tc.roundTrips {
				t.Errorf("statements %d, round trips %d; want %d, %d", s, r, tc.statements, tc.roundTrips)
			}
		})
	}
}
