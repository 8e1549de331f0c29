package websocket_test

import (
	"testing"

	"go.uber.org/goleak"
)

// The connections a Dialer opens are closed by the streams that own them.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
