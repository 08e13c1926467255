package record

import (
	"errors"
	"fmt"
	"math"

	"github.com/ckpt-dev/ckpt/trace"
)

// absent is an event's Op when its line has no "op" (trace.None, -1,
// is a number a line can hold).
const absent = math.MinInt32

// inLine checks that e keeps its process's line, which merging cannot
// place otherwise: an op's number is the one due (opDue); a process
// ends once, down iff it is down. A fail of a program alone (no
// protocol) lets the next op take the count back: the restarted
// program takes up where its own state has it, at op 0 when it runs
// again from its start, as a recorder Open gives after a crash numbers
// its ops.
func (rec *recording) inLine(e *event) error {
	switch {
	case e.kind == trace.Fail:
		rec.failed = e.ln
		if rec.Algorithm == "" {
			rec.due = fmt.Sprintf("after the fail at line %d, op %d or an earlier one (where the restarted program takes up) is due", e.ln, rec.op)
		}
	case e.kind == trace.Restart || e.kind == trace.Rollback:
		rec.op = max(e.Pos, 0)
		rec.due = fmt.Sprintf("the %s at line %d (pos %d) makes op %d due", e.Kind, e.ln, e.Pos, rec.op)
		if e.kind == trace.Restart {
			rec.failed, rec.up = 0, e.ln
		}
	case e.kind == trace.End:
		return rec.ends(e)
	case e.kind.IsOp() && !e.Re:
		return rec.opDue(e)
	}
	return nil
}

// opDue checks an op's number: each op numbers the live ops before it,
// so a number out of line is an op lost, repeated without a restore, or
// garbled.
func (rec *recording) opDue(e *event) error {
	switch {
	case e.Op == absent:
		return errors.New(`it lacks "op": every op records its number`)
	case e.Op < 0:
		return fmt.Errorf(`"op" is %d: an op's number counts the live ops before it`, e.Op)
	case rec.failed > 0 && rec.Algorithm == "" && e.Op <= rec.op:
		rec.op, rec.failed = e.Op, 0 // the restarted program took up at e.Op
	}
	if e.Op != rec.op {
		due := fmt.Sprintf("op %d is due: ops before it are missing", rec.op)
		if rec.due != "" {
			due = rec.due
		} else if e.Op < rec.op {
			due = fmt.Sprintf("op %d is due: an op repeated without a restart or rollback before it", rec.op)
		}
		return fmt.Errorf(`"op" is %d where %s`, e.Op, due)
	}
	rec.op, rec.due = rec.op+1, ""
	return nil
}

// ends checks the process's end: its first, saying "down" iff the
// process failed and did not restart (SPEC §3).
func (rec *recording) ends(e *event) error {
	down := e.Stat == trace.StateDown.String()
	switch {
	case rec.end > 0:
		return fmt.Errorf("a second end (the first is line %d)", rec.end)
	case rec.failed > 0 && !down:
		return fmt.Errorf(`it says %q, but the process failed at line %d and did not restart: it ended "down"`, e.Stat, rec.failed)
	case rec.failed == 0 && down && rec.up > 0:
		return fmt.Errorf(`it says "down", but the process is up: it restarted at line %d after its last fail`, rec.up)
	case rec.failed == 0 && down:
		return errors.New(`it says "down", but the process never failed`)
	}
	rec.end = e.ln
	return nil
}
