//go:build !unix

package apiclient

import "syscall"

// loopbackBuffers leaves socket buffers to the system where setting them
// needs platform code this package does not carry.
func loopbackBuffers(_, _ string, _ syscall.RawConn) error { return nil }
