package consistency

import (
	"bytes"
	"reflect"
	"runtime"
	"testing"

	"github.com/ckpt-dev/ckpt/trace/codec"

	"github.com/ckpt-dev/ckpt/consistency/history"
	"github.com/ckpt-dev/ckpt/report"
	"github.com/ckpt-dev/ckpt/trace"
)

// The property rules are pure: judging a model changes neither it nor
// the run it was built from, so that every rule sees the same history
// whatever order they run in.
func TestRulesArePure(t *testing.T) {
	for _, c := range allCases() {
		run := c.build(t)
		var before bytes.Buffer
		if err := codec.WriteRun(&before, run, codec.WriteOptions{}); err != nil {
			t.Fatal(err)
		}
		judged := history.Build(run, nil, history.AlgOf(run))
		for _, rule := range rules {
			rule(judged)
		}
		fresh := history.Build(run, nil, history.AlgOf(run))
		if !reflect.DeepEqual(judged, fresh) {
			t.Errorf("%s/%s: judging changed the model", c.property, c.name)
		}
		var after bytes.Buffer
		if err := codec.WriteRun(&after, run, codec.WriteOptions{}); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(before.Bytes(), after.Bytes()) {
			t.Errorf("%s/%s: judging changed the run", c.property, c.name)
		}
	}
}

// TestLogReplayAt: judge swaps in the streamed form of the rule at
// logReplayAt, which must be log-replay-rules, and starts the one at
// equivalenceAt first, which must be equivalence.
func TestLogReplayAt(t *testing.T) {
	m := history.Build(&trace.Run{Algorithm: "pk", Processes: []string{"P0"}}, nil, history.PK)
	if got := rules[logReplayAt](m).Name; got != report.LogReplayRules {
		t.Fatalf("rules[logReplayAt] judges %s", got)
	}
	if got := rules[equivalenceAt](m).Name; got != report.Equivalence {
		t.Fatalf("rules[equivalenceAt] judges %s", got)
	}
}

// TestJudgeOnAnyCores: the rules run concurrently (judgeRules), and the
// report is the one they give one after the other.
func TestJudgeOnAnyCores(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for _, c := range allCases() {
		run := c.build(t)
		runtime.GOMAXPROCS(1)
		one := Check(run, nil)
		runtime.GOMAXPROCS(8)
		many := Check(run, nil)
		if !reflect.DeepEqual(one, many) {
			t.Errorf("%s/%s: on 1 core:\n%s\non 8:\n%s", c.property, c.name, dump(one), dump(many))
		}
	}
}
