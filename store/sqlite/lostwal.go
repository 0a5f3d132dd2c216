package sqlite

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// The WAL stays at rest (keepwal.go), so between two commands it holds
// every commit since the last checkpoint. Deleted or cut short by hand
// while no catchup has the ledger open, those records are gone, and the
// next SQLite connection finds a consistent, older ledger: nothing says
// so, and scan replays slots that ran. The -shm file that SQLite leaves
// beside it still holds the wal-index header of the last connection: how
// many frames the WAL held (mxFrame) and how many of them the database
// file already has (nBackfill). lostAtRest reads it before SQLite does
// (the first connection to open the ledger resets it), and says what was
// lost when frames not yet in the database are no longer in the WAL.
//
// It never refuses the ledger: after a power cut in the instant between a
// TRUNCATE checkpoint's truncation of the WAL and the write-back of the
// -shm's new header, the -shm can tell of frames the database file already
// holds. A wrong warning then costs a look; a refusal would stop every
// fire. Only scan, which would run the lost slots again, refuses while the
// mark it leaves stands (lostmark.go); catchup's own TRUNCATE checkpoints
// sync the -shm right after (syncWALIndex), so that instant is short.

// The wal-index header (SQLite's wal.c, WalIndexHdr): two copies of 48
// bytes, then the checkpoint information, whose first field is nBackfill.
// Its fields are in the machine's byte order.
const (
	walIndexHdrSize  = 48
	walIndexNeed     = 2*walIndexHdrSize + 4
	walIndexVersion  = 3007000
	walHeaderSize    = 32
	walFrameOverhead = 24
)

// walIndexHeader is what lostAtRest reads of a -shm file.
type walIndexHeader struct {
	mxFrame, nBackfill uint32
	pageSize           int64
}

// readWALIndex reads the -shm at path; ok is false unless it holds a
// whole, initialised header, both copies equal and its checksum right.
func readWALIndex(path string) (raw []byte, h walIndexHeader, ok bool) {
	f, err := os.Open(path)
	if err != nil {
		return nil, h, false
	}
	defer f.Close()
	raw = make([]byte, walIndexNeed)
	if _, err := f.ReadAt(raw, 0); err != nil {
		return nil, h, false
	}
	first, second := raw[:walIndexHdrSize], raw[walIndexHdrSize:2*walIndexHdrSize]
	ne := binary.NativeEndian
	if !bytes.Equal(first, second) || ne.Uint32(first[0:]) != walIndexVersion || first[12] != 1 ||
		!walIndexChecksumOK(first) {
		return nil, h, false
	}
	h.pageSize = int64(ne.Uint16(first[14:]))
	if h.pageSize == 1 {
		h.pageSize = 65536
	}
	h.mxFrame = ne.Uint32(first[16:])
	h.nBackfill = ne.Uint32(raw[2*walIndexHdrSize:])
	return raw, h, true
}

// walIndexChecksumOK checks the header's checksum of its first 40 bytes
// (walChecksumBytes, native byte order) against the one it stores.
func walIndexChecksumOK(hdr []byte) bool {
	ne := binary.NativeEndian
	var s1, s2 uint32
	for i := 0; i < 40; i += 8 {
		s1 += ne.Uint32(hdr[i:]) + s2
		s2 += ne.Uint32(hdr[i+4:]) + s1
	}
	return s1 == ne.Uint32(hdr[40:]) && s2 == ne.Uint32(hdr[44:])
}

// lostAtRest returns what the ledger at path (real) lost with its -wal while
// nobody had it open, or "". A -shm that changes while it looks (a
// connection at work: a checkpoint resets the header before it truncates
// the WAL, a commit grows the WAL before it counts the frames) is never
// read as a loss.
func lostAtRest(path, real string) string {
	shm := real + "-shm"
	raw, h, ok := readWALIndex(shm)
	if !ok || h.mxFrame <= h.nBackfill {
		return "" // nothing the database file does not hold already
	}
	need := walHeaderSize + int64(h.mxFrame)*(h.pageSize+walFrameOverhead)
	fi, err := os.Stat(real + "-wal")
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil || fi.Size() >= need:
		return ""
	}
	again, _, ok := readWALIndex(shm)
	if !ok || !bytes.Equal(raw, again) {
		return ""
	}
	return fmt.Sprintf("ledger %s: its -wal was deleted or cut short while no catchup had it open: "+
		"the records written since its last checkpoint (%d WAL frames) are lost, so scan may replay slots that ran "+
		"and miss slots that were held; restore the ledger from a backup if you have one (docs/ledger.md), "+
		"and never delete a ledger's -wal or -shm by hand", path, h.mxFrame-h.nBackfill)
}

// OpenWarning is what the ledger found as it opened that its user must
// hear of (see lostAtRest), or "".
func (s *Ledger) OpenWarning() string { return s.lostAtRest }
