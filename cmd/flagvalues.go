package cmd

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/ckpt-dev/ckpt/trace"
	"github.com/ckpt-dev/ckpt/trace/codec"
)

// Flags whose values are more than a string or a bool share one type,
// value, and their messages across commands, so that a delay is given
// the same way to verify, replay, gen and import (seconds, a plain
// number) and a bad value reads the same everywhere:
//
//	--down 0: want a number of seconds > 0
//	--events -5: want a whole number >= 0
//
// Values are checked when the flag is parsed: a bad one is a flag error
// (exit 2, with the pointer to --help).

// value is a flag read into *p by parse; show (nil: fmt.Sprint) writes
// the default in the help.
type value[T any] struct {
	p     *T
	typ   string
	parse func(string) (T, error)
	show  func(T) string
}

func (v value[T]) Type() string { return v.typ }

func (v value[T]) String() string {
	if v.show != nil {
		return v.show(*v.p)
	}
	return fmt.Sprint(*v.p)
}

func (v value[T]) Set(s string) error {
	t, err := v.parse(s)
	if err == nil {
		*v.p = t
	}
	return err
}

// secondsFlag is a duration in seconds, read into a trace.Time exactly
// as trace times are (rounded once to the nanosecond); > 0 if positive
// (delays, periods), else >= 0.
func secondsFlag(t *trace.Time, positive bool) value[trace.Time] {
	return value[trace.Time]{p: t, typ: "seconds", parse: func(s string) (trace.Time, error) { return parseSeconds(s, positive) }}
}

// parseSeconds reads a number of seconds, > 0 if positive, else >= 0.
func parseSeconds(s string, positive bool) (trace.Time, error) {
	want := "want a number of seconds >= 0"
	if positive {
		want = "want a number of seconds > 0"
	}
	f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return 0, errors.New(want)
	}
	t, ok := trace.FromSeconds(f)
	switch {
	case ok && (t > 0 || !positive):
		return t, nil
	case positive && trace.RoundsToZero(f):
		return 0, fmt.Errorf("%s; %s %s", want, s, trace.ZeroRoundingText)
	case f > 0 && !ok: // finite but beyond the time range, or +Inf
		return 0, fmt.Errorf("%s, at most %s", want, trace.MaxTimeText)
	}
	return 0, errors.New(want)
}

// intFlag is a whole number of at least min.
func intFlag(n *int, min int) value[int] {
	return value[int]{p: n, typ: "int", parse: func(s string) (int, error) {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < min {
			return 0, fmt.Errorf("want a whole number >= %d", min)
		}
		return n, nil
	}}
}

// fractionFlag is a number in [0, 1] (a probability).
func fractionFlag(f *float64) value[float64] {
	return value[float64]{p: f, typ: "float", parse: func(s string) (float64, error) {
		f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		if err != nil || !(f >= 0 && f <= 1) {
			return 0, errors.New("want a number in [0, 1]")
		}
		return f, nil
	}}
}

// flagValueError rewrites pflag's "invalid argument "-1" for "--seed"
// flag: strconv.ParseUint: parsing "-1": invalid syntax" as
// "--seed -1: want a whole number >= 0": the flag, the value, what is
// wanted. Other flag errors (unknown flags, missing values) pass as they
// are.
func flagValueError(err error) error {
	var ive *pflag.InvalidValueError
	if !errors.As(err, &ive) {
		return err
	}
	fl := ive.GetFlag()
	cause := errors.Unwrap(ive)
	var ne *strconv.NumError
	if errors.As(cause, &ne) {
		switch fl.Value.Type() { // the types of ckpt's pflag flags
		case "uint64":
			cause = errors.New("want a whole number >= 0")
		case "int", "int64":
			cause = errors.New("want a whole number")
		case "bool":
			cause = errors.New("want true or false")
		}
	}
	return fmt.Errorf("--%s %s: %v", fl.Name, ive.GetValue(), cause)
}

// traceWriteOptions decides how a trace or run is written to out: JSON
// Lines when out ends in .jsonl(.gz) or jsonl is set, gzip when it ends
// in .gz or gz is set. A flag that contradicts out's name is an error
// rather than a file whose name lies about its content (ckpt would read
// it, by content, but other tools would not): --gzip -o plain.json,
// --jsonl -o doc.json. Other names (t.bin) follow the flags.
func traceWriteOptions(out string, jsonl, gz bool) (codec.WriteOptions, error) {
	w := codec.WriteOptions{JSONL: jsonl, Gzip: gz}
	if out == "" || out == "-" {
		return w, nil
	}
	base := strings.TrimSuffix(out, ".gz")
	switch {
	case base != out:
		w.Gzip = true
	case gz && (strings.HasSuffix(out, ".json") || strings.HasSuffix(out, ".jsonl")):
		return w, usagef("--gzip writes gzip, but -o %s names a plain JSON file: name it %s.gz (or drop --gzip)", out, out)
	}
	switch {
	case strings.HasSuffix(base, ".jsonl"):
		w.JSONL = true
	case jsonl && strings.HasSuffix(base, ".json"):
		return w, usagef("--jsonl writes JSON Lines, but -o %s ends in .json: name it %sl (or drop --jsonl)", out, base)
	}
	return w, nil
}
