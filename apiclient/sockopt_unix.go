//go:build unix

package apiclient

import (
	"net"
	"syscall"
)

// loopbackRcvBuf is the receive buffer of a connection to a loopback
// address. Linux sizes a socket's receive buffer by how much the reader
// drained per round trip; on loopback a round trip is tens of microseconds,
// so a decoder slower than the server keeps it near 128-190 KB: under three
// of loopback's 64 KB segments. The window it advertises then falls below
// one segment, the sender stops and waits for its 200 ms persist timer,
// and the receiver, once drained, sends no window update (it does only
// when the new window is twice the old one, and the new one is capped by
// a threshold that stays below that). With 4 MiB the window stays many
// segments wide (the kernel caps it at net.core.rmem_max, 4 MiB here, often
// 208 KiB elsewhere: still above the stalling size once doubled, as Linux
// does). Remote peers keep autotuning, which a fixed size would cap on long,
// fat links. Loopback is how kubectl proxy, port-forwards, sidecar proxies
// and tests reach an API server, so this is not only for benchmarks.
const loopbackRcvBuf = 4 << 20

// loopbackBuffers is a net.Dialer Control that sets loopbackRcvBuf before
// connecting (the window scale is fixed at the handshake). Best effort: a
// failure only leaves the system's default.
func loopbackBuffers(_, address string, c syscall.RawConn) error {
	host, _, err := net.SplitHostPort(address)
	if err != nil {
		return nil
	}
	if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
		return nil
	}
	_ = c.Control(func(fd uintptr) {
		_ = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, loopbackRcvBuf)
	})
	return nil
}
