package consistency

import (
	"fmt"
	"reflect"
	"testing"

	"pgregory.net/rapid"
)

// partOp is one thing a rule does to its result.
type partOp struct {
	kind int // 0 a violation, 1 cannotJudge, 2 notApplicable
	text string
}

func (o partOp) apply(r *result) {
	switch o.kind {
	case 0:
		r.fail([]int32{1}, func() (string, string) { return o.text, "because " + o.text })
	case 1:
		r.cannotJudge(o.text)
	case 2:
		r.notApplicable(o.text)
	}
}

// Judging log-replay-rules in parts, each into a result of its own, and
// joining them in order gives the result of judging the parts one after
// the other into one: the same first witnesses in order, the same count
// past the cap, the same standing and note.
func TestJoinPartsIsOneResult(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		nparts := rapid.IntRange(1, 5).Draw(t, "parts")
		parts := make([][]partOp, nparts)
		for i := range parts {
			n := rapid.IntRange(0, 2*maxWitnesses).Draw(t, fmt.Sprint("ops ", i))
			for k := range n {
				kind := rapid.IntRange(0, 2).Draw(t, fmt.Sprint("kind ", i, k))
				if kind > 0 && rapid.IntRange(0, 9).Draw(t, fmt.Sprint("rare ", i, k)) > 0 {
					kind = 0 // reasons are rare; witnesses many
				}
				parts[i] = append(parts[i], partOp{kind, fmt.Sprintf("p%d.%d", i, k)})
			}
		}
		one := newResult("x")
		separate := make([]result, nparts)
		for i, ops := range parts {
			separate[i] = newResult("x")
			for _, o := range ops {
				o.apply(&one)
				o.apply(&separate[i])
			}
		}
		if got := joinParts(separate); !reflect.DeepEqual(got, one) {
			t.Fatalf("joined:\n%+v\none result:\n%+v", got, one)
		}
	})
}
