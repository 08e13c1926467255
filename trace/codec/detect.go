package codec

import (
	"bytes"
	"io"
	"os"

	"github.com/ckpt-dev/ckpt/trace"

	"github.com/goccy/go-json/jsontext"
)

// Detect tells a trace from a run by the "format" field of the header. It
// reads (decompressing gzip) only as far as that field and returns the
// format found ("" if the header has none before its events, or the input
// is not a JSON object; RunFormat for a RunFormat2 run too: it says what
// the document is) and a reader that yields the whole input again,
// decompressed, for ReadTrace or ReadRun.
func Detect(r io.Reader) (format string, rest io.Reader, err error) {
	in, err := openInput(r)
	if err != nil {
		return "", nil, err
	}
	var seen bytes.Buffer
	format = detectFormat(io.TeeReader(in, &seen), false)
	// What the decoder read is in seen; the rest is still in in.
	return format, io.MultiReader(&seen, in), nil
}

// detectFormat reads the header up to "format" and returns its value,
// giving up ("") at "events" unless full is set, in which case it skips
// the events too, a token at a time (for files, which can be read twice
// without buffering).
func detectFormat(r io.Reader, full bool) string {
	dec := jsontext.NewDecoder(r, jsonOpts)
	if tok, err := dec.ReadToken(); err != nil || tok.Kind() != '{' {
		return ""
	}
	for dec.PeekKind() == '"' {
		name, err := dec.ReadToken()
		if err != nil {
			return ""
		}
		switch name.String() {
		case "format":
			v, err := dec.ReadValue()
			if err != nil || v[0] != '"' {
				return ""
			}
			var buf []byte
			if s := string(text(v, &buf)); s != RunFormat2 {
				return s
			}
			return RunFormat // a run all the same

		case "events":
			if !full {
				return ""
			}
		}
		if dec.SkipValue() != nil {
			return ""
		}
	}
	return ""
}

// ReadAnyFile reads the trace or run in the named file: exactly one of
// the results is non-nil on success. The file is read twice, first up to
// its header's "format", so that a run whose "format" comes after its
// events is recognized (the path must not name a pipe); a header that
// names no format at all is read as a trace.
func ReadAnyFile(path string) (*trace.Trace, *trace.Run, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	in, err := openInput(f)
	if err != nil {
		return nil, nil, &trace.InputError{File: path, Event: -1, Msg: err.Error()}
	}
	format := detectFormat(in, true)
	// Read the file itself again, so that the decoder can size its
	// events from the file's size.
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, nil, err
	}
	if format == RunFormat {
		run, err := ReadRun(path, f)
		return nil, run, err
	}
	tr, err := ReadTrace(path, f)
	return tr, nil, err
}
