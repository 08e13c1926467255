package codec

import "hash/maphash"

// Control bodies met again. A PK token's body lists every receipt live at
// its origin's restart, and the run writes it at every hop, on the send
// and on the receipt (SPEC §6): a token round a ring of n processes is
// the same text 2n times, and reading it each time was most of checking
// a PK run. The engine stores such a body once and lets the events share
// its index; the decoder does the same for a body whose text it has read
// before. Text is recognised by a 128-bit hash under two seeds drawn
// when the decoder starts, so a run's author cannot aim at a collision,
// and two different texts meet one with probability about n²/2^129.

// bodyKey identifies a body's text.
type bodyKey [2]uint64

// bodySeen maps the texts of the bodies read so far to their index in
// the run's Bodies. The zero bodySeen is ready: key sets it up.
type bodySeen struct {
	seeds [2]maphash.Seed
	index map[bodyKey]int32
}

// key returns the key of text v.
func (s *bodySeen) key(v []byte) bodyKey {
	if s.index == nil {
		s.seeds, s.index = [2]maphash.Seed{maphash.MakeSeed(), maphash.MakeSeed()}, map[bodyKey]int32{}
	}
	return bodyKey{maphash.Bytes(s.seeds[0], v), maphash.Bytes(s.seeds[1], v)}
}
