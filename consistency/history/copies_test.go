package history_test

import (
	"strings"
	"testing"

	"github.com/ckpt-dev/ckpt/trace/codec"

	"github.com/ckpt-dev/ckpt/consistency/history"
	"github.com/ckpt-dev/ckpt/report"
)

// A copy number far beyond anything the run could have sent breaks the
// run's form, and takes no room: padding the copy table up to a forged
// "copy": 100000000 took gigabytes (found by review fuzzing).
func TestHugeCopyNumber(t *testing.T) {
	const doc = `{"format": "ckpt/run@1", "algorithm": "bcs", "processes": ["P0", "P1"], "options": {"restart_delay": 1, "control_delay": 0.5, "default_delay": 1}, "events": [{"seq": 0, "t": 1, "p": "P1", "kind": "send", "msg": "m2", "to": "P0", "op": 0, "copy": 1, "pb": {"lc": 0}}, {"seq": 1, "t": 2, "p": "P0", "kind": "recv", "msg": "m2", "from": "P1", "op": 0, "copy": 1, "via": "net"}, {"seq": 2, "t": 3, "p": "P0", "kind": "checkpoint", "ckpt": 1, "type": "basic", "pos": 1, "sn": 1}, {"seq": 3, "t": 4, "p": "P0", "kind": "send", "msg": "m1", "to": "P1", "op": 1, "copy": 100000000, "pb": {"lc": 1}}, {"seq": 4, "t": 5, "p": "P1", "kind": "checkpoint", "ckpt": 1, "type": "forced", "pos": 1, "sn": 1}, {"seq": 5, "t": 5, "p": "P1", "kind": "recv", "msg": "m1", "from": "P0", "op": 1, "copy": 1, "via": "net"}, {"seq": 6, "t": 5, "p": "P0", "kind": "end", "state": "done"}, {"seq": 7, "t": 5, "p": "P1", "kind": "end", "state": "done"}]}`
	run, err := codec.ReadRun("huge-copy.run.json", strings.NewReader(doc))
	if err != nil {
		t.Fatal(err)
	}
	m := history.Build(run, nil, history.AlgOf(run))
	if n := len(m.Copies.Send); n > len(run.Events) {
		t.Errorf("%d copies registered for a run of %d events", n, len(run.Events))
	}
	found := false
	for _, v := range violations(run, report.Equivalence) {
		found = found || strings.Contains(v.Message, "copy numbers of m1 jump")
	}
	if !found {
		t.Error("the jump in copy numbers is not reported")
	}
}
