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
		judged := buildModel(run)
		for i, rule := range rules {
			r := newResult(ruleNames[i])
			rule(judged, &r)
		}
		fresh := buildModel(run)
		if judged.Final != nil { // built on first use, by a rule or not
			judged.Final.Built()
			fresh.Final.Built()
		}
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

// TestRuleOrder: each rule stands at its property's place in the
// report's order (ruleNames), the places the specs report to among them:
// a rule judges into the result at its place, named from there.
func TestRuleOrder(t *testing.T) {
	want := map[string]func(*history.Model, *result){
		report.OrphanFree: orphanFree, report.NoLostMessages: noLostMessages, report.NoDuplicates: noDuplicates,
		report.LogReplayRules: logReplayRules, report.DominoFree: dominoFree, report.ZCycleFree: zCycleFree,
		report.RDT: rollbackDependencyTrackable, report.SnLines: snLines, report.MinimalRollback: minimalRollback,
		report.Equivalence: equivalence,
	}
	if len(report.PropertyNames) != len(rules) {
		t.Errorf("the report lists %d properties, the checker judges %d", len(report.PropertyNames), len(rules))
	}
	for i, name := range ruleNames {
		if w, ok := want[name]; !ok || reflect.ValueOf(rules[i]).Pointer() != reflect.ValueOf(w).Pointer() {
			t.Errorf("rules[%d] is not the rule of %s", i, name)
		}
	}
	at := map[int]string{orphanFreeAt: report.OrphanFree, logReplayAt: report.LogReplayRules, dominoFreeAt: report.DominoFree, equivalenceAt: report.Equivalence}
	for i, name := range at {
		if ruleNames[i] != name {
			t.Errorf("place %d is %s's, not %s's", i, ruleNames[i], name)
		}
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

// buildModel builds the model of a whole run, as Check's stream does
// but without its specs.
func buildModel(run *trace.Run) *history.Model {
	b := history.NewBuilder(run, nil, history.AlgOf(run), len(run.Events))
	for i := range run.Events {
		b.Add(&run.Events[i])
	}
	return b.Finish()
}
