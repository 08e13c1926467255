// Package defect names the rules that a test-only mutant
// (algorithms/mutants) breaks inside a real state machine, where wrapping
// its Step cannot: the machine's own later decisions depend on the rule.
//
// The zero value of every type breaks nothing. Only packages under
// algorithms/ can import this package, so nothing else — the CLI in
// particular — can even name a defect; production code never sets one.
package defect

// MS lists the rules of package ms that a mutant can break.
type MS struct {
	// NoForced skips the forced checkpoint before delivering a message
	// with M.sn > sn (SPEC §4.1): the message is delivered and sn stays.
	// A wrapper cannot drop the checkpoint afterwards: the machine would
	// keep sn raised and a checkpoint the engine never took.
	NoForced bool
	// TrustLog takes every logged entry for valid (SPEC §4.2's replay
	// rule ignored): a restore replays all entries at or after its
	// position, and a replayed copy is never discarded as stale. Which
	// entries are valid is the machine's judgement of its own applied
	// recoveries, which a wrapper cannot see.
	TrustLog bool
}
