package codec

import (
	"fmt"

	"github.com/ckpt-dev/ckpt/trace"
)

// checkRunFields rejects a run of one of ckpt's algorithms whose events
// evs (the run's from seq first on) omit a field the algorithm always
// writes, naming the event and the field.
func checkRunFields(evs []trace.RunEvent, run *trace.Run, first int) error {
	for i := range evs {
		if f := run.MissingField(&evs[i]); f != "" {
			return &trace.InputError{File: run.Name, Event: first + i, Msg: fmt.Sprintf("%s event lacks %q, which %s always writes", evs[i].Kind, f, run.Algorithm)}
		}
	}
	return nil
}
