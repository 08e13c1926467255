//go:build unix

package main

import (
	"bytes"
	"os"

	json "github.com/goccy/go-json"

	"github.com/ckpt-dev/ckpt/replay"
)

// A branch's stable storage is one append-only journal, a JSON line per
// step. A step is everything one input causes: MS's input (so that a
// restarted branch rebuilds MS by stepping it through them again), the
// checkpoints it took (the branch's state), the messages it logged, the
// frames it must send and the copies it consumed, and how long the
// recording is once the step's events are in it. A step happens iff its
// line is in the journal:
//
//   - before the line, the step's events are written to the recording;
//     a crash there leaves events of a step that never happened, which
//     the restart cuts off (the recording is truncated to the last
//     line's length): the branch crashed just before that step;
//   - after the line, the step's frames go out and its copies are taken
//     from the network; a crash there leaves them undone, which the
//     restart redoes (the network drops a frame it already has).
//
// Lines with a checkpoint or a logged message are fsynced: that is the
// stable storage MS assumes. The others are only written: the failures
// the driver injects kill the process, not the machine, and the
// operating system keeps what a killed process wrote.
type entry struct {
	In    *replay.Input `json:"in,omitempty"`
	Snaps []snap        `json:"snaps,omitempty"`
	Logs  []logged      `json:"logs,omitempty"`
	Out   []*frame      `json:"out,omitempty"`
	Takes []copyRef     `json:"takes,omitempty"`
	Rec   int64         `json:"rec"`
}

// snap is a checkpoint: MS's id and the branch's state.
type snap struct {
	ID    int32 `json:"id"`
	State state `json:"state"`
}

// state is what a checkpoint saves: the live op count and the balances.
type state struct {
	Pos int32   `json:"pos"`
	Bal []int64 `json:"bal"`
}

// logged is an entry of the message log: the copy MS names, as received.
type logged struct {
	Copy replay.CopyID `json:"copy"`
	Wire []byte        `json:"wire"`
}

// copyRef names a transmission: its sender and the sender's event number.
type copyRef struct {
	From string `json:"from"`
	Tx   int64  `json:"tx"`
}

type journal struct{ f *os.File }

// openJournal opens the journal at path and returns its steps. A last
// line cut short by a crash is no step, and is cut off.
func openJournal(path string) (*journal, []entry, error) {
	b, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		return nil, nil, err
	}
	var steps []entry
	end := 0
	for end < len(b) {
		i := bytes.IndexByte(b[end:], '\n')
		if i < 0 {
			break
		}
		var e entry
		if err := json.Unmarshal(b[end:end+i], &e); err != nil {
			return nil, nil, err
		}
		steps = append(steps, e)
		end += i + 1
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err == nil {
		err = f.Truncate(int64(end))
	}
	if err == nil {
		_, err = f.Seek(int64(end), 0)
	}
	return &journal{f}, steps, err
}

// append writes one step, and fsyncs it if it holds stable data.
func (j *journal) append(e *entry) error {
	b, err := json.Marshal(e)
	if err != nil {
		return err
	}
	if _, err := j.f.Write(append(b, '\n')); err != nil {
		return err
	}
	if len(e.Snaps) > 0 || len(e.Logs) > 0 {
		return j.f.Sync()
	}
	return nil
}
