package snapshot_test

import (
	"encoding/base64"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/snapshot"
)

func TestATLSSessionComesBackWholeAndNeverPrints(t *testing.T) {
	session := snapshot.Secret("ticket-and-master-secret")
	data := encode(t, snapshot.Header{Identity: testID, ResourceVersion: "9", TLSSession: session}, mkPods(2))
	h, _, err := decode(data, true)
	require.NoError(t, err)
	require.Equal(t, session, h.TLSSession, "the next process gets the session back")

	var log strings.Builder
	slog.New(slog.NewTextHandler(&log, nil)).Info("loaded", "header", h, "session", h.TLSSession)
	slog.New(slog.NewJSONHandler(&log, nil)).Info("loaded", "session", h.TLSSession)
	printed := log.String() + fmt.Sprintf("%v %+v %#v %s %q %x", h, h, h, h.TLSSession, h.TLSSession, h.TLSSession)
	require.NotContains(t, printed, "master-secret")
	require.NotContains(t, printed, fmt.Sprintf("%x", []byte(session)))
	require.NotContains(t, printed, base64.StdEncoding.EncodeToString(session))
	require.Contains(t, printed, "[redacted]")

	none := encode(t, snapshot.Header{Identity: testID, ResourceVersion: "9"}, nil)
	h, _, err = decode(none, true)
	require.NoError(t, err)
	require.Empty(t, h.TLSSession, "a snapshot without a session (plain http, an older writer)")
}
