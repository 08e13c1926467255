package render

import (
	"math/big"
	"strconv"
)

// plural is "1 one" or "N many".
func plural[N int | int64](n N, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.FormatInt(int64(n), 10) + " " + many
}

func pluralBig(n *big.Int, one, many string) string {
	if n == nil {
		return "? " + many
	}
	if n.IsInt64() && n.Int64() == 1 {
		return "1 " + one
	}
	return n.String() + " " + many
}

// percent writes a coverage fraction; anything short of complete never
// rounds up to 100%.
func percent(f float64) string {
	if f >= 1 {
		return "100%"
	}
	s := strconv.FormatFloat(f*100, 'f', 2, 64)
	if s == "100.00" {
		s = "99.99"
	}
	return s + "%"
}
