package codec

import (
	"strings"
	"testing"
)

// TestRunBodiesSharedProcessesLast: in a document that lists its
// processes after its events, the decoder numbers processes
// provisionally and decode renumbers each event's body origin; a body
// shared by two events must be renumbered once, not once per event
// (renumbered twice it names the wrong process, or indexes past the
// provisional numbering and panics).
func TestRunBodiesSharedProcessesLast(t *testing.T) {
	body := `{"origin":"P2","inc":0,"k":1,"received":[]}`
	ev := func(seq, t, p, to string) string {
		return `{"seq":` + seq + `,"t":` + t + `,"p":"` + p + `","kind":"control_send","to":"` + to + `","control":"token","body":` + body + `}`
	}
	for _, c := range []struct{ name, events, procs string }{
		{"ring", ev("0", "1", "P2", "P0") + `,` + ev("1", "2", "P0", "P1") + `,` + ev("2", "3", "P1", "P2"), `["P0","P1","P2"]`},
		{"unused processes", ev("0", "1", "P2", "P2") + `,` + ev("1", "2", "P2", "P2"), `["P0","P1","P2"]`},
	} {
		t.Run(c.name, func(t *testing.T) {
			doc := `{"format":"ckpt/run@1","algorithm":"acme","events":[` + c.events + `],"processes":` + c.procs + `}`
			run, err := ReadRun("t.json", strings.NewReader(doc))
			if err != nil {
				t.Fatal(err)
			}
			for i := range run.Events {
				if o := run.Body(&run.Events[i]).Origin; run.Processes[o] != "P2" {
					t.Errorf("event %d: body origin %s, want P2", i, run.Processes[o])
				}
			}
		})
	}
}
