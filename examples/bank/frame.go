//go:build unix

package main

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"

	json "github.com/goccy/go-json"
)

// The branches talk to the network (the driver's relay) over TCP on
// 127.0.0.1, one connection each, in frames: a 4-byte length, then JSON.
type frame struct {
	Kind  kind    `json:"k"`
	Name  string  `json:"name,omitempty"` // hello: who connects
	To    string  `json:"to,omitempty"`   // data, control from a branch: the receiver
	Wire  []byte  `json:"wire,omitempty"` // data, control: the recorder's wire bytes
	From  string  `json:"from,omitempty"` // take: the copy's sender
	Tx    int64   `json:"tx,omitempty"`   // take: its transmission
	N     int64   `json:"n,omitempty"`    // idle: frames handled on this connection
	Bal   []int64 `json:"bal,omitempty"`  // bye: the final balances
	State string  `json:"state,omitempty"`
}

type kind uint8

const (
	kHello   kind = iota + 1 // branch → relay, first
	kData                    // a transfer: branch → relay → branch
	kControl                 // an MS Rollback request, likewise
	kTake                    // branch → relay: a copy is consumed for good
	kIdle                    // branch → relay: nothing to do until a frame comes
	kReady                   // branch → relay: (re)started and recovered
	kBye                     // branch → relay: stopped, with its balances
	kBacklog                 // relay → branch: what waited for it has been sent
	kStop                    // relay → branch: end the run
)

func writeFrame(w *bufio.Writer, f *frame) error {
	b, err := json.Marshal(f)
	if err != nil {
		return err
	}
	var n [4]byte
	binary.BigEndian.PutUint32(n[:], uint32(len(b)))
	w.Write(n[:])
	w.Write(b)
	return w.Flush()
}

func readFrame(r *bufio.Reader) (*frame, error) {
	var n [4]byte
	if _, err := io.ReadFull(r, n[:]); err != nil {
		return nil, err
	}
	size := binary.BigEndian.Uint32(n[:])
	if size > 1<<24 {
		return nil, fmt.Errorf("frame of %d bytes", size)
	}
	b := make([]byte, size)
	if _, err := io.ReadFull(r, b); err != nil {
		return nil, err
	}
	f := &frame{}
	return f, json.Unmarshal(b, f)
}
