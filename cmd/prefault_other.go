//go:build !linux

package cmd

// canPopulate is false here: the engine faults its pages itself.
const canPopulate = false

func populate([]byte) bool { return false }
