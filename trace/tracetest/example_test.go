package tracetest_test

import (
	"fmt"
	"os"

	"github.com/ckpt-dev/ckpt/trace/codec"
	"github.com/ckpt-dev/ckpt/trace/tracetest"
)

func ExampleNewBuilder() {
	tr, err := tracetest.NewBuilder("P0", "P1").
		Send(0.4, "P0", "P1", "m1").
		Checkpoint(0.5, "P0").
		Recv(0.9, "P1", "m1").Label("delivered").
		Build()
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := codec.WriteTrace(os.Stdout, tr, codec.WriteOptions{JSONL: true}); err != nil {
		fmt.Println(err)
	}
	// Output:
	// {"format":"ckpt/trace@1","processes":["P0","P1"]}
	// {"t":0.4,"p":"P0","kind":"send","to":"P1","msg":"m1"}
	// {"t":0.5,"p":"P0","kind":"checkpoint"}
	// {"t":0.9,"p":"P1","kind":"recv","msg":"m1","label":"delivered"}
}
