package zgraph

import (
	"testing"

	"github.com/ckpt-dev/ckpt/rline"
)

// FuzzCheck: any input either is rejected with an error or is judged as
// the brute-force oracle judges it; nothing panics. The bytes describe up
// to 4 processes: the first byte their number, then triples (kind, a, b):
// kind even adds a checkpoint at position b of process a, odd a message
// from a to b sent and received at the next free positions, so that most
// inputs are valid executions and some (a to itself) are not.
func FuzzCheck(f *testing.F) {
	f.Add([]byte{3, 1, 0, 1, 0, 1, 2, 1, 2, 1, 0, 0, 1})
	f.Add([]byte{2, 1, 1, 0, 0, 0, 1, 1, 0, 1})
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) == 0 {
			return
		}
		n := int(data[0]%4) + 1
		ckpts := make([][]int32, n)
		for p := range ckpts {
			ckpts[p] = []int32{0}
		}
		next := make([]int32, n)
		var msgs []rline.Msg
		for i := 1; i+2 < len(data) && len(msgs) < 40; i += 3 {
			a, b := int32(int(data[i+1])%n), int32(int(data[i+2])%n)
			if data[i]%2 == 0 {
				ckpts[a] = append(ckpts[a], next[a])
				continue
			}
			m := rline.Msg{From: a, SendOp: next[a], To: b, RecvOp: next[b]}
			next[a]++
			next[b]++
			msgs = append(msgs, m)
		}
		v, err := CheckRDT(ckpts, msgs)
		if err != nil {
			return
		}
		if want := bruteForce(ckpts, msgs).rdt(); want != (len(v) == 0) {
			t.Fatalf("oracle RDT = %v, checker reports %v", want, v)
		}
	})
}
