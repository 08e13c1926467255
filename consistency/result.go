package consistency

import (
	"fmt"
	"slices"

	"github.com/ckpt-dev/ckpt/report"
)

// maxWitnesses bounds the violations kept per property: a broken run can
// have millions, and the first few explain the rest.
const maxWitnesses = 20

// result is one property's verdict as a rule builds it: the report's
// property, whose status is pass, n/a or unknown (with the note that
// explains it) until a violation makes it fail, and the number of
// violations found, also those whose witness is not kept.
type result struct {
	report.Property
	count int
}

func newResult(name string) result {
	return result{Property: report.Property{Name: name, Status: report.Pass}}
}

// fail records a witness of the property failing, at seqs. text renders
// its message and because-chain and is called only for the witnesses
// kept (the first maxWitnesses): a broken run can fail a rule at every
// event, and formatting a witness for each cost more than the checking.
func (r *result) fail(seqs []int32, text func() (msg, because string)) {
	if r.counted() {
		msg, because := text()
		r.keep(msg, seqs, because)
	}
}

// failChain is fail for a witness whose seqs are found as its
// because-chain is written (an orphan's chain of dependencies, a Z-path):
// chain returns all three, and is called only for the witnesses kept.
func (r *result) failChain(chain func() (msg string, seqs []int32, because string)) {
	if r.counted() {
		r.keep(chain())
	}
}

// failed records a witness already formatted (a spec's, another
// result's violation): fail's eager form, for text that exists anyway.
func (r *result) failed(msg string, seqs []int32, because string) {
	if r.counted() {
		r.keep(msg, seqs, because)
	}
}

// counted counts one more violation and reports whether its witness is
// kept: the count stays exact however many are dropped.
func (r *result) counted() bool {
	r.count++
	return len(r.Violations) < maxWitnesses
}

// keep appends a witness.
func (r *result) keep(msg string, seqs []int32, because string) {
	r.Violations = append(r.Violations, report.Violation{Property: r.Name, Message: msg, Seqs: dedupe(seqs), Because: because})
}

// notApplicable marks the property n/a: a property the algorithm does
// not promise stays n/a whatever fields the run omits.
func (r *result) notApplicable(why string) {
	if r.Status != report.NA {
		r.Status, r.Note = report.NA, why
	}
}

// cannotJudge marks the property unknown unless a reason is already
// recorded: the first reason explains it.
func (r *result) cannotJudge(why string) {
	if r.Status != report.NA && r.Status != report.Unknown && why != "" {
		r.Status, r.Note = report.Unknown, why
	}
}

// then appends the violations of a later, separate judgement of the same
// property (kept apart so that earlier witnesses keep their order).
func (r *result) then(o result) {
	for _, v := range o.Violations {
		r.failed(v.Message, v.Seqs, v.Because)
	}
	r.count += o.count - len(o.Violations)
}

// property returns the report's form of the verdict.
func (r *result) property() report.Property {
	p := r.Property
	if len(p.Violations) > 0 {
		p.Status, p.Note = report.Fail, ""
		if r.count > len(p.Violations) {
			p.Note = fmt.Sprintf("%d violations, the first %d shown", r.count, len(p.Violations))
		}
	}
	if p.Violations == nil {
		p.Violations = []report.Violation{}
	}
	return p
}

// dedupe drops repeated seqs and absent ones, keeping first occurrences
// in order.
func dedupe(seqs []int32) []int32 {
	out := make([]int32, 0, len(seqs))
	for _, s := range seqs {
		if s >= 0 && !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// Reasons shared by several rules.
const (
	failureWhy  = "a restart or rollback names no fail event it answers (no usable `failure` field), so per-failure judgements are incomplete"
	causalWhy   = "the run lacks op or copy numbers, so live histories and causality cannot be rebuilt"
	finalOpsWhy = "the run lacks op numbers, so the final live history cannot be rebuilt"
	copiesWhy   = "the run lacks copy numbers, so messages cannot be matched to receipts"
)
