package conformance

import (
	"context"
	"fmt"
	"os"
	"sync"
	"testing"

	"go.uber.org/goleak"

	"github.com/stretchr/testify/require"
	"github.com/zerokube/zerokube/conformance/kubetest"
)

// real is the kube-apiserver shared by every test of this package, started
// by the first test that needs it and stopped by TestMain.
var real struct {
	once sync.Once
	srv  *kubetest.Server
	err  error // why there is none: binaries absent, or start failed

	reported sync.Once // a failed start is told in full once
}

// realServer returns the shared kube-apiserver, or skips the test when the
// binaries are absent (TestMain has said how to build them) and fails it
// when they are present but did not start.
func realServer(t *testing.T) *kubetest.Server {
	t.Helper()
	real.once.Do(func() {
		if os.Getenv("ZEROKUBE_KUBE") == "off" {
			real.err = errSkipped("ZEROKUBE_KUBE=off")
			return
		}
		bins, err := kubetest.Find()
		if err != nil {
			fmt.Println("conformance: fake server only:", kubetest.SkipMessage) // once per test binary
			real.err = errSkipped(kubetest.SkipMessage)
			return
		}
		// StatefulSets (which no other scenario uses) skip the watch cache,
		// so that a watch from a compacted resourceVersion reaches etcd and
		// fails with an ERROR event at once, as it does on a long-running
		// server whose cache has moved on (partial/watch-error).
		real.srv, real.err = kubetest.Start(context.Background(), bins,
			kubetest.Options{ExtraArgs: []string{"--watch-cache-sizes=statefulsets.apps#0"}})
	})
	if s, ok := real.err.(errSkipped); ok {
		t.Skip(string(s))
	}
	if real.err != nil {
		real.reported.Do(func() { t.Fatal(real.err) })
		t.Fatal("kube-apiserver did not start; the first test that needed it says why")
	}
	return real.srv
}

// ownServer starts a kube-apiserver (and etcd) for t alone, with opts, and
// stops it when t ends; it skips t where the shared one would be skipped
// (ZEROKUBE_KUBE=off, no binaries) and under -short, for the start costs
// seconds.
func ownServer(t *testing.T, opts kubetest.Options) *kubetest.Server {
	t.Helper()
	if testing.Short() {
		t.Skip("starts a kube-apiserver of its own")
	}
	if os.Getenv("ZEROKUBE_KUBE") == "off" {
		t.Skip("ZEROKUBE_KUBE=off")
	}
	bins, err := kubetest.Find()
	if err != nil {
		t.Skip(kubetest.SkipMessage)
	}
	srv, err := kubetest.Start(context.Background(), bins, opts)
	require.NoError(t, err)
	t.Cleanup(srv.Close)
	return srv
}

type errSkipped string

func (e errSkipped) Error() string { return string(e) }

func TestMain(m *testing.M) {
	code := m.Run()
	if real.srv != nil {
		real.srv.Close()
	}
	printMatches()
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, "goleak:", err)
			code = 1
		}
	}
	os.Exit(code)
}
