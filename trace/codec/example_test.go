package codec_test

import (
	"fmt"
	"strings"

	"github.com/ckpt-dev/ckpt/trace/codec"
)

func ExampleReadTrace() {
	in := `{"format":"ckpt/trace@1","processes":["P0","P1"],"events":[
		{"t":1,"p":"P1","kind":"recv","msg":"m4"},
		{"t":2,"p":"P0","kind":"send","to":"P1","msg":"m4"}]}`
	_, err := codec.ReadTrace("bad.json", strings.NewReader(in))
	fmt.Println(err)
	// Output:
	// bad.json: event 0: recv of "m4" before its send
}
