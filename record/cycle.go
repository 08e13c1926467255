package record

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ckpt-dev/ckpt/trace/shiviz"
)

// cycle finds a cycle of happened-before among the events all (those of
// ex, whose Children are the receipts of each send), for the message
// that refuses recordings no execution can explain: the lines it goes
// through, in order, or "" when there is none. Each step is a process's
// next event or a receipt of a send.
func cycle(all []*event, ex *shiviz.Execution) string {
	state := make([]byte, len(all)) // 0: not seen, 1: on the path, 2: done
	for root := range all {
		if state[root] != 0 {
			continue
		}
		path, next := []int32{int32(root)}, []int{0} // next: the successor to try
		state[root] = 1
		for len(path) > 0 {
			top := len(path) - 1
			i, k := path[top], next[top]
			next[top]++
			kids, j := ex.Events[i].Children, int32(-1)
			switch {
			case k < len(kids):
				j = kids[k]
			case k == len(kids) && int(i)+1 < len(all) && all[i+1].p == all[i].p:
				j = i + 1
			default:
				state[i], path, next = 2, path[:top], next[:top]
				continue
			}
			if state[j] == 1 {
				return lines(all, append(path[slices.Index(path, j):], j))
			}
			if state[j] == 0 {
				state[j], path, next = 1, append(path, j), append(next, 0)
			}
		}
	}
	return ""
}

// lines names the events of path by file and line.
func lines(all []*event, path []int32) string {
	s := make([]string, len(path))
	for i, j := range path {
		s[i] = fmt.Sprintf("%s line %d", all[j].rec.file, all[j].ln)
	}
	return strings.Join(s, " -> ")
}
