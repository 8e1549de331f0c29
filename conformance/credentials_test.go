package conformance

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/apiclient"
	"github.com/zerokube/zerokube/meta"
)

// A token file rewritten with a token of the same length and the same
// modification time (two writes in one tick of the file system's clock)
// looks unchanged: the client keeps the token it read, the server answers
// 401, and the client must read the file again and send the request once
// more (apiclient's credentials.go), on both servers.
func TestARotationTheFilesMetadataHidesIsRecoveredAfterA401(t *testing.T) {
	onBoth(t, func(t *testing.T, tg *target) {
		file := filepath.Join(t.TempDir(), "token")
		wrong := strings.Repeat("x", len(tg.token))
		require.NoError(t, os.WriteFile(file, []byte(wrong), 0o600))
		fi, err := os.Stat(file)
		require.NoError(t, err)
		cfg := *tg.cfg
		cfg.BearerToken, cfg.BearerTokenFile = "", file
		c, err := apiclient.NewWithOptions(&cfg, apiclient.Options{Logger: quiet()})
		require.NoError(t, err)
		t.Cleanup(c.CloseIdleConnections)
		nsRef := apiclient.Ref{GVR: meta.GVR{Version: "v1", Resource: "namespaces"}}

		_, err = apiclient.Get[meta.Raw](t.Context(), c, nsRef, "default")
		require.True(t, meta.IsUnauthorized(err), "a wrong token: %v", err)

		require.NoError(t, os.WriteFile(file, []byte(tg.token), 0o600))
		require.NoError(t, os.Chtimes(file, fi.ModTime(), fi.ModTime()))
		got, err := apiclient.Get[meta.Raw](t.Context(), c, nsRef, "default")
		require.NoError(t, err, "the 401 made the client read the file again")
		require.Equal(t, "default", got.GetName())
	})
}
