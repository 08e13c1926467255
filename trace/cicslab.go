package trace

// CICSlab hands out CIC vectors carved from large chunks. FDAS and HMNR
// make a new piggyback vector at every change of state that a send
// follows — on a busy trace about one in five events — and the run keeps
// every one; allocated one by one they were three allocations each, half
// of all the allocations of a replay. The zero CICSlab is ready to use.
// It is not safe for concurrent use; one state machine owns one.
type CICSlab struct {
	cics  []CIC
	ints  []int32
	bools []bool
}

// slabChunk is how many elements a chunk holds at least.
const slabChunk = 1024

// CIC returns a new zero CIC with LC absent (None).
func (s *CICSlab) CIC() *CIC {
	if len(s.cics) == 0 {
		s.cics = make([]CIC, slabChunk/16)
	}
	c := &s.cics[0]
	s.cics = s.cics[1:]
	c.LC = None
	return c
}

// Ints returns a new zeroed vector of n ints, its capacity n.
func (s *CICSlab) Ints(n int) []int32 { return carve(&s.ints, n) }

// Bools returns a new zeroed vector of n flags, its capacity n.
func (s *CICSlab) Bools(n int) []bool { return carve(&s.bools, n) }

// carve returns the next n zeroed elements of *chunk, capacity n, from a
// new chunk when it has fewer left.
func carve[T any](chunk *[]T, n int) []T {
	if len(*chunk) < n {
		*chunk = make([]T, max(slabChunk, 16*n))
	}
	v := (*chunk)[:n:n]
	*chunk = (*chunk)[n:]
	return v
}
