package apiclient_test

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"

	"github.com/zerokube/zerokube/apiclient"
	"github.com/zerokube/zerokube/fakeapiserver"
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

// ExampleSetCondition sets a condition and a label on a pod, as an agent
// reports what it found; a second writer in between would only cost a
// retry.
func ExampleSetCondition() {
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
	pods := apiclient.Ref{GVR: meta.GVR{Version: "v1", Resource: "pods"}, Namespace: "default"}
	if _, err := srv.Create(pods.GVR, map[string]any{"metadata": map[string]any{"name": "web", "namespace": "default"},
		"spec": map[string]any{"containers": []any{map[string]any{"name": "c", "image": "nginx"}}}}); err != nil {
		panic(err)
	}

	type Pod struct {
		meta.ObjectMeta `json:"metadata"`
		Status          struct {
			Conditions []meta.Condition `json:"conditions,omitempty"`
		} `json:"status"`
	}
	ctx := context.Background()
	p, err := apiclient.SetCondition[Pod](ctx, c, pods, "web", meta.Condition{Type: "example.com/Checked",
		Status: meta.ConditionTrue, Reason: "DiskOK", Message: "92% free"}, apiclient.ConditionOptions{})
	if err != nil {
		panic(err)
	}
	cond := p.Status.Conditions[0]
	fmt.Println(cond.Type, cond.Status, cond.Reason)
	p, err = apiclient.UpdateMetadata[Pod](ctx, c, pods, "web", apiclient.MetadataChange{SetLabels: map[string]string{"checked": "yes"}})
	if err != nil {
		panic(err)
	}
	fmt.Println(p.Labels)
	// Output:
	// example.com/Checked True DiskOK
	// map[checked:yes]
}
