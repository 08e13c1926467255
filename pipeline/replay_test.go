package pipeline

import "testing"

func TestSourceFor(t *testing.T) {
	tests := []struct{ file, out, want string }{
		{"t.json", "", "t.json"},
		{"t.json", "-", "t.json"},
		{"-", "runs/r.json", "-"},
		{"t.json", "runs/r.json", "../t.json"},
		{"traces/t.json", "runs/r.json", "../traces/t.json"},
		{"traces/t.json", "traces/r.json", "t.json"},
		{"t.json", "r.json", "t.json"},
		{"/data/t.json", "/data/runs/r.json", "../t.json"},
	}
	for _, tc := range tests {
		if got := SourceFor(tc.file, tc.out); got != tc.want {
			t.Errorf("SourceFor(%q, %q) = %q, want %q", tc.file, tc.out, got, tc.want)
		}
	}
}
