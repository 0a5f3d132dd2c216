package catchup

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"strconv"
)

// writeOwedAlert writes alert a, owed for the slots of ex with their
// causes, as json.Marshal writes it with its Slots and Causes filled in:
// the lists a slot at a time, from the spans. A gap of a year is half a
// million of each: filled in and marshalled whole, they took 55 MB.
func writeOwedAlert(w *bufio.Writer, a owedAlert, ex []expirySpan) error {
	a.Slots, a.Causes = nil, nil
	head, err := json.Marshal(a)
	if err != nil {
		return err
	}
	head, ok := bytes.CutSuffix(head, []byte(`"slots":null,"causes":null}`))
	if !ok {
		return errors.New("an owed alert's slots and causes are not its last fields")
	}
	w.Write(head)
	w.WriteString(`"slots":[`)
	sep := ""
	for _, e := range ex {
		for _, slot := range e.slots {
			w.WriteString(sep)
			w.WriteString(strconv.FormatInt(slot.Unix(), 10))
			sep = ","
		}
	}
	w.WriteString(`],"causes":[`)
	sep = ""
	var last string
	var encoded []byte // last's: a handful of causes, each encoded once in a row
	for _, e := range ex {
		for i := range e.slots {
			if c := e.cause(i); encoded == nil || c != last {
				if encoded, err = json.Marshal(c); err != nil {
					return err
				}
				last = c
			}
			w.WriteString(sep)
			w.Write(encoded)
			sep = ","
		}
	}
	w.WriteString("]}")
	return nil
}
