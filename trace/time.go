package trace

import (
	"fmt"
	"math"
	"strconv"
)

// Time is simulated time in integer nanoseconds. Traces state times as
// seconds (JSON numbers); they are rounded to nanoseconds exactly once, on
// reading, so that replay can add delays without floating-point drift and
// reproduce trace times exactly (SPEC §3).
type Time int64

// Second is one second of simulated time.
const Second Time = 1_000_000_000

// MaxTime bounds every time and duration ckpt reads, and every time a
// replay computes: 2^61 − 1 ns, 2305843009.213693951 s, about 73 years.
// Two of them add without overflowing int64, which is what lets the
// replay engine check each sum against MaxTime exactly (replay/time.go).
const MaxTime Time = math.MaxInt64 / 4

// MaxTimeText states MaxTime for messages.
const MaxTimeText = "2305843009.213693951 s (about 73 years)"

// EpochHint is the advice given with a time beyond MaxTime: such times
// are nearly always absolute timestamps.
const EpochHint = "make epoch timestamps relative to the trace's start"

// OutOfRange words a time (field names it, as `"t"`) or a duration
// whose value, written got, is out of range: beyond MaxTime when over —
// for a time with EpochHint, since such a number is nearly always an
// absolute timestamp — else below 0, or for a duration not above 0.
func OutOfRange(field, got string, over, duration bool) string {
	switch {
	case over && duration:
		return fmt.Sprintf("%s must be at most %s, got %s", field, MaxTimeText, got)
	case over:
		return fmt.Sprintf("%s must be at most %s, got %s; %s", field, MaxTimeText, got, EpochHint)
	case duration:
		return field + " must be a finite number > 0, got " + got
	}
	return field + " must be a finite number >= 0, got " + got
}

// FromSeconds converts a number of seconds read from JSON into a Time,
// rounding to the nearest nanosecond. ok is false for NaN, infinities,
// negative values and values beyond MaxTime.
func FromSeconds(s float64) (t Time, ok bool) {
	if math.IsNaN(s) || math.IsInf(s, 0) || s < 0 {
		return 0, false
	}
	ns := math.Round(s * 1e9)
	// float64(MaxTime) rounds up to 2^61, so the float comparison alone
	// would let 2^61 through: compare the integer too.
	if ns > float64(MaxTime) || Time(ns) > MaxTime {
		return 0, false
	}
	return Time(ns), true
}

// ZeroRoundingText says why a positive duration shorter than half a
// nanosecond is refused: it is not too large, it is below the resolution.
const ZeroRoundingText = "rounds to 0 ns; the resolution is 1 ns"

// RoundsToZero reports whether s is a positive number of seconds that
// FromSeconds rounds to 0 ns: a duration the user meant to be > 0 that
// ckpt cannot represent.
func RoundsToZero(s float64) bool {
	return s > 0 && math.Round(s*1e9) == 0
}

// Seconds returns t as floating-point seconds, for display only.
func (t Time) Seconds() float64 { return float64(t) / 1e9 }

// AppendJSON appends t as an exact decimal number of seconds ("1.5", "0",
// "2.000000001"). It never goes through float64, so encoding and decoding
// a Time is the identity.
func (t Time) AppendJSON(b []byte) []byte {
	if t < 0 {
		b = append(b, '-')
		t = -t
	}
	b = strconv.AppendInt(b, int64(t/Second), 10)
	frac := int64(t % Second)
	if frac == 0 {
		return b
	}
	var digits [9]byte
	for i := 8; i >= 0; i-- {
		digits[i] = byte('0' + frac%10)
		frac /= 10
	}
	n := 9
	for n > 0 && digits[n-1] == '0' {
		n--
	}
	b = append(b, '.')
	return append(b, digits[:n]...)
}

// String formats t like AppendJSON.
func (t Time) String() string { return string(t.AppendJSON(nil)) }

// MarshalJSON writes t as exact decimal seconds.
func (t Time) MarshalJSON() ([]byte, error) { return t.AppendJSON(nil), nil }

// UnmarshalJSON reads decimal seconds, rounding once to nanoseconds.
func (t *Time) UnmarshalJSON(b []byte) error {
	f, err := strconv.ParseFloat(string(b), 64)
	if err != nil {
		return err
	}
	v, ok := FromSeconds(f)
	if !ok {
		return strconv.ErrRange
	}
	*t = v
	return nil
}
