package fakeapiservertest_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/zerokube/zerokube/apiclient"
	"github.com/zerokube/zerokube/fakeapiserver/fakeapiservertest"
	"github.com/zerokube/zerokube/meta"
)

// A test starts the server, writes through its Go API and reads back with
// apiclient.
func Example() {
	t := &testing.T{} // in a test, the *testing.T it is given
	srv := fakeapiservertest.Start(t)
	defer srv.Close()
	cms := meta.GVR{Version: "v1", Resource: "configmaps"}
	if _, err := srv.Create(cms, `{"metadata":{"name":"settings","namespace":"default"}}`); err != nil {
		panic(err)
	}
	c, err := apiclient.New(fakeapiservertest.ClientConfig(srv))
	if err != nil {
		panic(err)
	}
	defer c.CloseIdleConnections()
	cm, err := apiclient.Get[meta.Raw](context.Background(), c, apiclient.Ref{GVR: cms, Namespace: "default"}, "settings")
	if err != nil {
		panic(err)
	}
	fmt.Println(cm.Name, cm.Namespace)
	// Output: settings default
}
