// Package codec reads and writes ckpt's traces (ckpt/trace@1) and runs
// (ckpt/run@1 and @2): JSON documents or JSON Lines, gzip-compressed or
// not, told apart by content. Decoders read as a stream, resolve names
// into the indexes of package trace's model, apply its rules as they go,
// and report bad input as a *trace.InputError naming the file, the event
// and, where it means something, the line (docs/formats.md).
package codec

// Format names written in the "format" field of each document. A run is
// written as RunFormat, or as RunFormat2 with WriteOptions.Compact
// (docs/formats.md); readers take both.
const (
	TraceFormat = "ckpt/trace@1"
	RunFormat   = "ckpt/run@1"
	RunFormat2  = "ckpt/run@2"
)
