package codec

import (
	"fmt"

	"github.com/ckpt-dev/ckpt/trace"
)

// procNames numbers the process names of a document as its events name
// them. When the header lists the processes first, a name it does not
// list is an error at once; when events come first, their numbers are
// provisional, and remap gives the final ones once the list is read, so
// that the events are never held twice. The zero procNames is ready.
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

// read reads the header's "processes" and takes it as the list.
func (n *procNames) read(f *frame) ([]string, error) {
	if n.listed {
		return nil, f.headerErr(`"processes" given twice`)
	}
	procs, err := f.names()
	if err != nil {
		return nil, err
	}
	if err := trace.CheckProcesses(procs); err != nil {
		err.File = f.name
		return nil, err
	}
	n.listed = true
	if len(n.names) == 0 {
		n.names = append(n.names, procs...)
		n.idx = make(map[string]int32, len(procs))
		for i, p := range procs {
			n.idx[p] = int32(i)
		}
		n.known = true
	}
	return procs, nil
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
	if n.idx == nil {
		n.idx = map[string]int32{}
	}
	idx := int32(len(n.names))
	s := string(name)
	n.names = append(n.names, s)
	n.idx[s] = idx
	n.firstUse = append(n.firstUse, int32(i))
	return idx, ""
}

// remap returns, once the header's list procs is read, the function
// from a provisional number to the final one (None stays None); or, for
// a name procs does not list, the error at the event that first named it
// in the named file.
func (n *procNames) remap(file string, procs []string) (func(int32) int32, error) {
	final := make(map[string]int32, len(procs))
	for i, p := range procs {
		final[p] = int32(i)
	}
	remap := make([]int32, len(n.names))
	for i, name := range n.names {
		idx, ok := final[name]
		if !ok {
			return nil, &trace.InputError{File: file, Event: int(n.firstUse[i]), Msg: fmt.Sprintf("unknown process %q", name)}
		}
		remap[i] = idx
	}
	n.names, n.known = procs, true
	return func(p int32) int32 {
		if p < 0 {
			return p
		}
		return remap[p]
	}, nil
}
