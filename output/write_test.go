package output

import (
	"errors"
	"io"
	"os"
	"syscall"
	"testing"
)

// An error of writing the temporary file names the output, without the
// temporary file's name; an error of the content passes as it is.
func TestTempError(t *testing.T) {
	tmp := "/out/.run.json.tmp123"
	tests := []struct {
		err  error
		want string
	}{
		{&os.PathError{Op: "write", Path: tmp, Err: syscall.ENOSPC}, "writing /out/run.json: no space left on device"},
		{&os.PathError{Op: "write", Path: "/elsewhere", Err: syscall.ENOSPC}, "write /elsewhere: no space left on device"},
		{io.ErrUnexpectedEOF, "unexpected EOF"},
	}
	for _, tc := range tests {
		if got := tempError("/out/run.json", tmp, tc.err); got.Error() != tc.want {
			t.Errorf("tempError(%v) = %q, want %q", tc.err, got, tc.want)
		}
	}
	if !errors.Is(tempError("/out/run.json", tmp, io.ErrUnexpectedEOF), io.ErrUnexpectedEOF) {
		t.Error("a content error is no longer itself")
	}
}
