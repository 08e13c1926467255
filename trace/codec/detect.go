package codec

import (
	"bytes"
	"errors"
	"io"
	"os"
	"strings"

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
	in, err := OpenInput(r)
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
	in, err := OpenInput(f)
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

// recordingFormat is record.Format (that package imports this one): a
// recording is read by ckpt import, not as a trace.
const recordingFormat = "ckpt/recording@1"

// kindHint ends the message that a document is not the format wanted
// with what it is and which command reads it, got being its "format"
// ("" when it has none, or is no JSON object at all); nothing for a
// ckpt format this build does not know, whose version says enough.
func kindHint(got, want string) string {
	switch {
	case got == RunFormat || got == RunFormat2:
		return " (a ckpt run: use ckpt check)"
	case got == TraceFormat:
		return " (a ckpt trace: use ckpt verify)"
	case got == recordingFormat:
		return " (a recording: use ckpt import)"
	case strings.HasPrefix(got, "ckpt/"):
		return ""
	case want == RunFormat:
		return "; not a ckpt run (ckpt replay writes them)"
	}
	return "; not a ckpt trace: if it is a ShiViz log or OTLP, Jaeger or Zipkin spans, use ckpt import"
}

// notJSON is the error of input whose first value is not JSON: a log
// of another tool, most likely, which kindHint points to import; a read
// error says what it says.
func (f *frame) notJSON(err error) error {
	err = f.malformed(err)
	var ie *trace.InputError
	if errors.As(err, &ie) && f.tap.rerr == nil {
		ie.Msg += kindHint("", f.format)
	}
	return err
}
