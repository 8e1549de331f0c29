package apiclient_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/zerokube/zerokube/apiclient"
	"github.com/zerokube/zerokube/meta"
)

// Example lists pods page by page from a server that answers like
// kube-apiserver: items without kind, a continue token on the first page.
func Example() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("continue") == "" {
			fmt.Fprint(w, `{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"42","continue":"p2"},`+
				`"items":[{"metadata":{"name":"web-1","namespace":"default"},"status":{"phase":"Running"}}]}`)
			return
		}
		fmt.Fprint(w, `{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"42"},`+
			`"items":[{"metadata":{"name":"web-2","namespace":"default"},"status":{"phase":"Pending"}}]}`)
	}))
	defer srv.Close()

	// A slim Pod: only the fields this program reads.
	type Pod struct {
		meta.TypeMeta
		meta.ObjectMeta `json:"metadata"`
		Status          struct {
			Phase string `json:"phase"`
		} `json:"status"`
	}

	c, err := apiclient.New(&apiclient.Config{Host: srv.URL})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.CloseIdleConnections()
	ref := apiclient.Ref{GVR: meta.GVR{Version: "v1", Resource: "pods"}, Namespace: "default"}
	lm, err := apiclient.ListAll[Pod](context.Background(), c, ref, apiclient.ListOptions{Limit: 1},
		func(page int, _ meta.ListMeta) { fmt.Println("page", page) },
		func(p *Pod) error {
			fmt.Println(p.Kind, meta.Key(p), p.Status.Phase)
			return nil
		})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("watch from resourceVersion", lm.ResourceVersion)
	// Output:
	// Pod default/web-1 Running
	// page 1
	// Pod default/web-2 Pending
	// page 2
	// watch from resourceVersion 42
}
