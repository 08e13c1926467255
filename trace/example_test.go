package trace_test

import (
	"fmt"
	"os"
	"strings"

	"github.com/ckpt-dev/ckpt/trace"
)

func ExampleNewBuilder() {
	tr, err := trace.NewBuilder("P0", "P1").
		Send(0.4, "P0", "P1", "m1").
		Checkpoint(0.5, "P0").
		Recv(0.9, "P1", "m1").Label("delivered").
		Build()
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := trace.WriteTrace(os.Stdout, tr, trace.WriteOptions{JSONL: true}); err != nil {
		fmt.Println(err)
	}
	// Output:
	// {"format":"ckpt/trace@1","processes":["P0","P1"]}
	// {"t":0.4,"p":"P0","kind":"send","to":"P1","msg":"m1"}
	// {"t":0.5,"p":"P0","kind":"checkpoint"}
	// {"t":0.9,"p":"P1","kind":"recv","msg":"m1","label":"delivered"}
}

func ExampleReadTrace() {
	in := `{"format":"ckpt/trace@1","processes":["P0","P1"],"events":[
		{"t":1,"p":"P1","kind":"recv","msg":"m4"},
		{"t":2,"p":"P0","kind":"send","to":"P1","msg":"m4"}]}`
	_, err := trace.ReadTrace("bad.json", strings.NewReader(in))
	fmt.Println(err)
	// Output:
	// bad.json: event 0: recv of "m4" before its send
}
