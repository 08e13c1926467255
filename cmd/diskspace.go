package cmd

import (
	"fmt"
	"path/filepath"

	"github.com/ckpt-dev/ckpt/trace"
)

// Bytes a written run takes, at least: an event with no piggyback or body
// is over 32 bytes of JSON ({"seq":0,"t":0,"p":"a","kind":"end"} is 38,
// the least there is); a receipt
// identity in a body is its quoted message name and "[…,inc]," around it.
// The estimate is a lower bound, so a refusal never stops a run that would
// have fit.
const (
	minRunEventBytes = 32
	identityBytes    = 7
	// gzipBestRatio bounds what compression can do for the check of a
	// .gz output; runs compress 4–6× at BestSpeed (docs/formats.md).
	gzipBestRatio = 20
)

// runSize is a lower bound on the bytes run takes when written, and the
// receipt identities its control bodies list: a PK token lists every
// receipt live in the announcer's recovered state and every hop writes
// the list again, so 10^5 failures of a 10^5-op trace write about 10^10
// identities, a file of hundreds of gigabytes.
func runSize(run *trace.Run) (bytes, ids int64) {
	var nameLen int64
	for _, m := range run.Msgs {
		nameLen += int64(len(m))
	}
	avg := int64(0)
	if len(run.Msgs) > 0 {
		avg = nameLen / int64(len(run.Msgs))
	}
	for i := range run.Events {
		if b := run.Events[i].Body; b != trace.None && int(b) < len(run.Bodies) {
			ids += bodyIdentities(&run.Bodies[b])
		}
	}
	return int64(len(run.Events))*minRunEventBytes + ids*(avg+identityBytes), ids
}

// bodyIdentities counts the identities a body lists, without listing them
// when its receipt set can say (trace.ReceiptHasher).
func bodyIdentities(c *trace.ControlBody) int64 {
	if h, ok := c.Receipts.(trace.ReceiptHasher); ok {
		_, n := h.SetHash()
		return int64(n)
	}
	return int64(len(c.Received))
}

// checkDiskSpace refuses to write run to out (gzip-compressed if gz) when even the least it can
// take exceeds the free space of out's filesystem: writing it would fill
// the disk (other programs' writes then fail too) and fail anyway, after
// minutes. Stdout, and systems where the free space is unknown, are not
// checked.
func checkDiskSpace(out string, gz bool, run *trace.Run) error {
	if out == "" || out == "-" {
		return nil
	}
	target, inPlace, err := resolveOutput(out)
	if err != nil || inPlace {
		return nil // writeOutput says what is wrong; a device takes no room
	}
	dir, err := filepath.Abs(filepath.Dir(target))
	if err != nil {
		return nil
	}
	free, ok := freeSpaceOf(dir)
	if !ok {
		return nil
	}
	need, ids := runSize(run)
	if gz {
		need /= gzipBestRatio
	}
	if need <= free {
		return nil
	}
	why := fmt.Sprintf("%d events", len(run.Events))
	if ids > 0 {
		why += fmt.Sprintf(" and %d receipt identities listed in control messages: each PK token lists every receipt live at its restart, and every hop writes the list", ids)
	}
	least := "at least"
	if gz {
		least = "even compressed at least"
	}
	return invalidf("writing %s: the run would take %s %s (%s), more than the %s free in %s; write it elsewhere, or check the trace with ckpt verify, which writes no run",
		out, least, formatBytes(need), why, formatBytes(free), dir)
}

// freeSpaceOf is freeSpace; tests substitute a small disk.
var freeSpaceOf = freeSpace
