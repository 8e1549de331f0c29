package kubetest_test

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/zerokube/zerokube/apiclient"
	"github.com/zerokube/zerokube/conformance/kubetest"
)

// Start a real kube-apiserver when conformance/kube/build.sh has built one,
// and talk to it with zerokube's client.
//
// This example has no Output comment, so go test compiles it but does not
// run it: it needs the binaries, which most machines do not have, and its
// output (the server's random port) differs from run to run. The conformance
// suite's TestMain (conformance/main_test.go) is where Start runs.
func Example() {
	bins, err := kubetest.Find()
	if err != nil {
		fmt.Println(kubetest.SkipMessage)
		return
	}
	srv, err := kubetest.Start(context.Background(), bins, kubetest.Options{})
	if err != nil {
		panic(err)
	}
	defer srv.Close()
	client, err := apiclient.New(srv.ClientConfig())
	if err != nil {
		panic(err)
	}
	defer client.CloseIdleConnections()
	fmt.Println("kube-apiserver at", srv.URL())
}

// Find looks in Dir ($ZEROKUBE_KUBE_BIN here) and names the first binary
// missing, which a test reports before it skips with SkipMessage.
func ExampleFind() {
	dir, err := os.MkdirTemp("", "kubetest-example")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	old, had := os.LookupEnv("ZEROKUBE_KUBE_BIN")
	os.Setenv("ZEROKUBE_KUBE_BIN", dir)
	defer func() {
		if had {
			os.Setenv("ZEROKUBE_KUBE_BIN", old)
		} else {
			os.Unsetenv("ZEROKUBE_KUBE_BIN")
		}
	}()

	_, err = kubetest.Find()
	fmt.Println(strings.ReplaceAll(err.Error(), dir, "$ZEROKUBE_KUBE_BIN"))
	fmt.Println(strings.HasPrefix(kubetest.SkipMessage, "no kube-apiserver "+kubetest.Version))
	// Output:
	// kubetest: stat $ZEROKUBE_KUBE_BIN/etcd: no such file or directory
	// true
}
