package discovery_test

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/zerokube/zerokube/apiclient"
	"github.com/zerokube/zerokube/discovery"
	"github.com/zerokube/zerokube/fakeapiserver"
)

func Example() {
	srv := fakeapiserver.New(fakeapiserver.Options{Logger: slog.New(slog.DiscardHandler)})
	if err := srv.Start(context.Background()); err != nil {
		panic(err)
	}
	defer srv.Close()
	c, err := apiclient.New(&apiclient.Config{Host: srv.URL()})
	if err != nil {
		panic(err)
	}
	defer c.CloseIdleConnections()

	d := discovery.New(c, discovery.Options{})
	for _, name := range []string{"deploy", "pod", "Node", "leases.coordination.k8s.io", "deployments.v1.apps"} {
		r, err := d.Resolve(context.Background(), name)
		if err != nil {
			panic(err)
		}
		fmt.Printf("%-27s %-30s namespaced=%t ref=%q\n", name, r.GVR, r.Namespaced, r.Ref("default").Path())
	}
	_, err = d.Resolve(context.Background(), "foos")
	fmt.Println(discovery.IsNotFound(err))
	// Output:
	// deploy                      apps/v1/deployments            namespaced=true ref="/apis/apps/v1/namespaces/default/deployments"
	// pod                         v1/pods                        namespaced=true ref="/api/v1/namespaces/default/pods"
	// Node                        v1/nodes                       namespaced=false ref="/api/v1/nodes"
	// leases.coordination.k8s.io  coordination.k8s.io/v1/leases  namespaced=true ref="/apis/coordination.k8s.io/v1/namespaces/default/leases"
	// deployments.v1.apps         apps/v1/deployments            namespaced=true ref="/apis/apps/v1/namespaces/default/deployments"
	// true
}
