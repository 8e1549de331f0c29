package kubetest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestFindNamesTheMissingBinary(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("ZEROKUBE_KUBE_BIN", dir)
	require.Equal(t, dir, Dir())
	_, err := Find()
	require.ErrorContains(t, err, filepath.Join(dir, "etcd"))

	require.NoError(t, os.WriteFile(filepath.Join(dir, "etcd"), []byte("#!/bin/sh\n"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "kube-apiserver"), []byte("#!/bin/sh\n"), 0o644))
	_, err = Find()
	require.ErrorContains(t, err, "kube-apiserver is not executable")

	require.NoError(t, os.Chmod(filepath.Join(dir, "kube-apiserver"), 0o755))
	b, err := Find()
	require.NoError(t, err)
	require.Equal(t, filepath.Join(dir, "kube-apiserver"), b.APIServer)
}

func TestWriteFilesMakesAUsableCertificateAndTokenFile(t *testing.T) {
	f, err := writeFiles(t.TempDir())
	require.NoError(t, err)
	tokens, err := os.ReadFile(f.tokens)
	require.NoError(t, err)
	require.Contains(t, string(tokens), f.token+",zerokube-admin,zerokube-admin,\"system:masters\"")
	for _, p := range []string{f.cert, f.key, f.saPub, f.saKey} {
		st, err := os.Stat(p)
		require.NoError(t, err)
		require.NotZero(t, st.Size(), p)
	}
	require.Contains(t, string(f.caPEM), "BEGIN CERTIFICATE")
}
