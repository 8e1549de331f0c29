package kubetest_test

import (
	"context"
	"fmt"

	"github.com/zerokube/zerokube/apiclient"
	"github.com/zerokube/zerokube/conformance/kubetest"
)

// Start a real kube-apiserver when conformance/kube/build.sh has built one,
// and talk to it with zerokube's client.
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
