//go:build linux

package apiclient

import (
	"net"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"
)

// A connection to a loopback address gets the large receive buffer (Linux
// reports twice the value set); others keep the system's autotuning.
func TestLoopbackConnectionsGetALargeReceiveBuffer(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	go func() {
		if c, err := ln.Accept(); err == nil {
			defer c.Close()
			_, _ = c.Read(make([]byte, 1))
		}
	}()
	d := net.Dialer{Control: loopbackBuffers}
	c, err := d.Dial("tcp", ln.Addr().String())
	require.NoError(t, err)
	defer c.Close()
	raw, err := c.(*net.TCPConn).SyscallConn()
	require.NoError(t, err)
	var got int
	require.NoError(t, raw.Control(func(fd uintptr) {
		got, err = syscall.GetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF)
	}))
	require.NoError(t, err)
	require.GreaterOrEqual(t, got, loopbackRcvBuf)
}
