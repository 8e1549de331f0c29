package conformance

import (
	"context"
	"fmt"
	"os"
	"sync"
	"testing"

	"go.uber.org/goleak"

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
