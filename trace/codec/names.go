package codec

import (
	"fmt"

	"github.com/ckpt-dev/ckpt/trace"
)

// procNames numbers the process names of a document as its events name
// them. When the header lists the processes first, a name it does not
// list is an error at once; when events come first, their numbers are
// provisional, and remap gives the final ones once the list is read, so
// that the events are never held twice.
type procNames struct {
	names []string
	idx   map[string]int32
	// known says the header's list came before any event named a
	// process; firstUse[i] is the event that first named provisional
	// process i.
	known    bool
	firstUse []int32
	// listed says the header's list has been read.
	listed bool
}

func newProcNames() procNames { return procNames{idx: map[string]int32{}} }

// list takes the header's process list.
func (n *procNames) list(procs []string) *trace.InputError {
	if n.listed {
		return &trace.InputError{Event: -1, Msg: `"processes" given twice`}
	}
	if err := trace.CheckProcesses(procs); err != nil {
		return err
	}
	n.listed = true
	if len(n.names) == 0 {
		n.names = append(n.names, procs...)
		for i, p := range procs {
			n.idx[p] = int32(i)
		}
		n.known = true
	}
	return nil
}

// index returns the number of the process named name, met in event i,
// or what is wrong with the name.
func (n *procNames) index(name []byte, i int) (int32, string) {
	if idx, ok := n.idx[string(name)]; ok {
		return idx, ""
	}
	if n.known {
		return trace.None, fmt.Sprintf("unknown process %q", name)
	}
	if len(name) == 0 {
		return trace.None, "process name must not be empty"
	}
	idx := int32(len(n.names))
	s := string(name)
	n.names = append(n.names, s)
	n.idx[s] = idx
	n.firstUse = append(n.firstUse, int32(i))
	return idx, ""
}

// remap returns, once the header's list procs is read, the final number
// of each provisional one; or, for a name procs does not list, the event
// that first named it and the error.
func (n *procNames) remap(procs []string) ([]int32, *trace.InputError) {
	final := make(map[string]int32, len(procs))
	for i, p := range procs {
		final[p] = int32(i)
	}
	remap := make([]int32, len(n.names))
	for i, name := range n.names {
		idx, ok := final[name]
		if !ok {
			return nil, &trace.InputError{Event: int(n.firstUse[i]), Msg: fmt.Sprintf("unknown process %q", name)}
		}
		remap[i] = idx
	}
	n.names, n.known = procs, true
	return remap, nil
}
