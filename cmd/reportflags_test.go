package cmd

import (
	"bytes"
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

// TestDelayFlags runs verify through the root command: an explicit delay
// that is not a finite number > 0 is invalid input (exit 2, SPEC §2/§8),
// 0 included; a flag not given falls back to the trace's params.
func TestDelayFlags(t *testing.T) {
	trace := filepath.Join("..", "testdata", "traces", "forced.json")
	for _, tc := range []struct {
		args []string
		code int
	}{
		{nil, ExitOK},
		{[]string{"--restart-delay", "2"}, ExitOK},
		{[]string{"--control-delay", "0.25"}, ExitOK},
		{[]string{"--restart-delay", "0"}, ExitInvalid},
		{[]string{"--control-delay", "0"}, ExitInvalid},
		{[]string{"--restart-delay=-1"}, ExitInvalid},
		{[]string{"--control-delay", "NaN"}, ExitInvalid},
		{[]string{"--restart-delay", "Inf"}, ExitInvalid},
		{[]string{"--restart-delay", "soon"}, ExitInvalid},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			var out, errOut bytes.Buffer
			ios := &IO{In: strings.NewReader(""), Out: &out, ErrOut: &errOut}
			root := NewRootCmd(ios)
			root.SetArgs(append(append([]string{"verify", "-q", "--algo", "pk"}, tc.args...), trace))
			root.SetOut(&errOut)
			root.SetErr(&errOut)
			err := root.Execute()
			code := ExitOK
			if err != nil {
				code = ExitInvalid // cobra's own flag-parse errors are usage errors
				var ee *ExitError
				if errors.As(err, &ee) {
					code = ee.Code
				}
			}
			if code != tc.code {
				t.Errorf("exit %d, want %d (err %v, stderr %q)", code, tc.code, err, errOut.String())
			}
		})
	}
}
