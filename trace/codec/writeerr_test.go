package codec

import (
	"testing"

	"github.com/ckpt-dev/ckpt/trace"
)

func TestWriterErrors(t *testing.T) {
	tr := &trace.Trace{Processes: []string{"P0"}, Events: []trace.Event{{T: trace.Second, Kind: trace.Fail, To: trace.None, Msg: trace.None}}}
	if err := WriteTrace(failWriter{}, tr, WriteOptions{}); err == nil {
		t.Error("WriteTrace hid a write error")
	}
	if err := WriteRun(failWriter{}, &trace.Run{Processes: []string{"P0"}}, WriteOptions{Gzip: true}); err == nil {
		t.Error("WriteRun hid a write error")
	}
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errWrite }

var errWrite = &trace.InputError{Event: -1, Msg: "disk full"}
