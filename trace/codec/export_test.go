package codec

// SamePiggyback and PiggybackText serve the external tests
// (engineform_test.go, compact_test.go).
var SamePiggyback, PiggybackText = samePB, pbString
