package informer_test

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"time"

	"github.com/zerokube/zerokube/apiclient"
	"github.com/zerokube/zerokube/cache"
	"github.com/zerokube/zerokube/fakeapiserver"
	"github.com/zerokube/zerokube/fakeapiserver/fakeapiservertest"
	"github.com/zerokube/zerokube/informer"
	"github.com/zerokube/zerokube/informer/observe"
	"github.com/zerokube/zerokube/meta"
)

// NodePod is what a node agent reads of a pod: its metadata and the node
// it runs on.
type NodePod struct {
	meta.SlimMeta `json:"metadata"`
	Spec          struct {
		NodeName string `json:"nodeName"`
	} `json:"spec"`
}

// startNodes starts a fake API server holding pods a1 and a2 on node-a and
// b1 on node-b.
func startNodes() (*fakeapiserver.Server, *apiclient.Client) {
	srv := fakeapiserver.New(fakeapiserver.Options{Logger: slog.New(slog.DiscardHandler)})
	if err := srv.Start(context.Background()); err != nil {
		panic(err)
	}
	for name, node := range map[string]string{"a1": "node-a", "a2": "node-a", "b1": "node-b"} {
		pod := fmt.Sprintf(`{"metadata":{"name":%q,"namespace":"default"},"spec":{"nodeName":%q,"containers":[{"name":"c"}]}}`, name, node)
		if _, err := srv.Create(podsGVR, pod); err != nil {
			panic(err)
		}
	}
	c, err := apiclient.New(fakeapiservertest.ClientConfig(srv))
	if err != nil {
		panic(err)
	}
	return srv, c
}

// runSynced runs inf until the returned stop is called, once it has synced.
func runSynced[T any, P meta.PtrObject[T]](inf *informer.Informer[T, P]) (stop func()) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second) // bounds every wait
	done := make(chan error, 1)
	go func() { done <- inf.Run(ctx) }()
	if err := inf.WaitForSync(ctx); err != nil {
		panic(err)
	}
	return func() { cancel(); <-done }
}

// keysOf returns the objects' keys, sorted.
func keysOf[P meta.Object](objs []P) []string {
	out := make([]string, 0, len(objs))
	for _, o := range objs {
		out = append(out, meta.Key(o))
	}
	slices.Sort(out)
	return out
}

// A node agent watches only the pods of its node: the server filters by
// the field selector (spec.nodeName, as the kubelet does), so the agent
// lists, watches and caches those alone. Its node's name comes from the
// downward API (spec.nodeName into an environment variable) in a real pod.
func Example_perNodeWatch() {
	srv, client := startNodes()
	defer srv.Close()
	inf := informer.New[NodePod](client, apiclient.Ref{GVR: podsGVR}, informer.Options[*NodePod]{
		FieldSelector: "spec.nodeName=node-a",
		Observe:       informer.ObserveOptions{Logger: slog.New(slog.DiscardHandler)},
	})
	stop := runSynced(inf)
	defer stop()
	fmt.Println(keysOf(inf.Lister().List(meta.LabelSelector{})))
	// Output: [default/a1 default/a2]
}

// PodName declares nothing beyond metadata: an informer of it asks the
// server for PartialObjectMetadata, client-go's metadata informer, which
// costs the server and the wire far less than whole pods (the README's
// table: "zerokube metadata only").
type PodName struct {
	meta.SlimMeta `json:"metadata"`
}

// A metadata-only informer: the type decides. The trace's relist says
// metadata=true; Transport.FullObjects would ask for whole objects.
func Example_metadataOnly() {
	srv, client := startNodes()
	defer srv.Close()
	asked := make(chan bool, 1)
	inf := informer.New[PodName](client, apiclient.Ref{GVR: podsGVR, Namespace: "default"}, informer.Options[*PodName]{
		Observe: informer.ObserveOptions{
			Logger: slog.New(slog.DiscardHandler),
			Trace: func(ev observe.Event) {
				if ev.Stage == observe.StageRelist {
					select {
					case asked <- ev.Metadata:
					default:
					}
				}
			},
		},
	})
	stop := runSynced(inf)
	defer stop()
	fmt.Println("metadata only:", <-asked)
	fmt.Println(keysOf(inf.Lister().List(meta.LabelSelector{})))
	// Output:
	// metadata only: true
	// [default/a1 default/a2 default/b1]
}

// An index answers "which pods run on node-a?" from the cache, without
// scanning it: Options.Indexers names index functions, and the lister
// queries them by name.
func Example_index() {
	srv, client := startNodes()
	defer srv.Close()
	inf := informer.New[NodePod](client, apiclient.Ref{GVR: podsGVR}, informer.Options[*NodePod]{
		Indexers: cache.Indexers[*NodePod]{
			"node": func(p *NodePod) ([]string, error) { return []string{p.Spec.NodeName}, nil },
		},
		Observe: informer.ObserveOptions{Logger: slog.New(slog.DiscardHandler)},
	})
	stop := runSynced(inf)
	defer stop()
	for _, node := range []string{"node-a", "node-b", "node-c"} {
		pods, err := inf.Lister().ByIndex("node", node)
		if err != nil {
			panic(err)
		}
		fmt.Println(node, keysOf(pods))
	}
	// Output:
	// node-a [default/a1 default/a2]
	// node-b [default/b1]
	// node-c []
}
