package snapshot

import (
	"errors"
	"fmt"
)

// Reason says why a snapshot was rejected. The set is closed: the constants
// below. A caller that falls back to a relist reports the reason (log,
// metric) so an operator can tell a crash mid-write from a configuration
// change.
type Reason uint8

// The reasons a snapshot is rejected.
const (
	// ReasonCorrupt: bytes that do not match their checksum, a magic number
	// that is not ours, or a structure that cannot be (a zero-length record,
	// bytes after the trailer).
	ReasonCorrupt Reason = iota + 1
	// ReasonTruncated: the file ends before its structure does, as after a
	// crash mid-write or a copy cut short (or a length field damaged to
	// point past the end).
	ReasonTruncated
	// ReasonVersion: a format version this code does not read.
	ReasonVersion
	// ReasonIdentity: a sound snapshot of something else: another server
	// or cluster, resource, namespace, selector, Go type, shard, request
	// shape, managed-fields choice or transform. Error.Field says which.
	ReasonIdentity
	// ReasonDecode: a record with a valid checksum that does not decode into
	// the type (its shape changed between versions of the program).
	ReasonDecode
)

var reasonNames = [...]string{
	ReasonCorrupt: "corrupt", ReasonTruncated: "truncated", ReasonVersion: "version",
	ReasonIdentity: "identity", ReasonDecode: "decode",
}

// String returns the reason's short name, e.g. "truncated", fit for a metric
// label.
func (r Reason) String() string {
	if int(r) < len(reasonNames) && reasonNames[r] != "" {
		return reasonNames[r]
	}
	return "reason(?)"
}

// ErrNotFound is returned (wrapped) by a Store's Load when no snapshot has
// been saved under the name. It is not a failure: the informer lists as
// usual.
var ErrNotFound = errors.New("snapshot: none saved")

// Error is why a snapshot was rejected. Nothing of a rejected snapshot is
// ever handed to the caller: decoding is all or nothing.
type Error struct {
	Reason Reason
	// Offset is the byte offset at which the problem was found.
	Offset int64
	// Field, Want and Got describe a ReasonIdentity mismatch ("server",
	// "cluster", "resource", "labelSelector", "request", …) and a ReasonVersion one ("version").
	Field, Want, Got string
	// Err is the underlying cause, if any (an I/O or JSON error).
	Err error
}

func (e *Error) Error() string {
	switch e.Reason {
	case ReasonIdentity, ReasonVersion:
		return fmt.Sprintf("snapshot: %s mismatch: %s is %q, want %q", e.Reason, e.Field, e.Got, e.Want)
	}
	if e.Err != nil {
		return fmt.Sprintf("snapshot: %s at byte %d: %v", e.Reason, e.Offset, e.Err)
	}
	return fmt.Sprintf("snapshot: %s at byte %d", e.Reason, e.Offset)
}

func (e *Error) Unwrap() error { return e.Err }

// ReasonOf returns the Reason of the *Error in err's chain, and false when
// there is none (err is nil, ErrNotFound, or an I/O error of the store).
func ReasonOf(err error) (Reason, bool) {
	var e *Error
	if errors.As(err, &e) {
		return e.Reason, true
	}
	return 0, false
}
