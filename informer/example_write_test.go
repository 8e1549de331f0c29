package informer_test

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/zerokube/zerokube/apiclient"
	"github.com/zerokube/zerokube/discovery"
	"github.com/zerokube/zerokube/informer"
	"github.com/zerokube/zerokube/meta"
)

// ConfigMap is slim: the informer caches its metadata only, not its data.
type ConfigMap struct {
	meta.TypeMeta
	meta.SlimMeta `json:"metadata"`
}

// wholeConfigMap reads a config map with its data.
type wholeConfigMap struct {
	meta.TypeMeta
	meta.SlimMeta `json:"metadata"`
	Data          map[string]string `json:"data"`
}

// Writing back from a slim type. Update would send only the fields the
// type declares and erase the others (here: the data), so write what you
// change and nothing else, to the resource the informer resolved (Ref: no
// second discovery lookup):
//   - labels and annotations: apiclient.UpdateMetadata, a merge patch that
//     needs no read and retries conflicts;
//   - any other field: a merge patch that carries the resourceVersion you
//     decided from. The server applies it only if the object has not
//     changed since (409 Conflict otherwise: decide again from a fresh
//     read, inside RetryOnConflict).
func ExampleInformer_Ref() {
	srv, client := startServer()
	defer srv.Close()
	if _, err := srv.Create(meta.GVR{Version: "v1", Resource: "configmaps"},
		`{"metadata":{"name":"settings","namespace":"default"},"data":{"keep":"me"}}`); err != nil {
		panic(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	// A name as kubectl takes it, resolved by discovery into a reference.
	cm, err := discovery.New(client, discovery.Options{}).Resolve(ctx, "cm")
	if err != nil {
		panic(err)
	}
	inf := informer.New[ConfigMap](client, cm.Ref("default"),
		informer.Options[*ConfigMap]{Observe: informer.ObserveOptions{Logger: slog.New(slog.DiscardHandler)}})
	fmt.Println("resolved:", inf.Ref())
	done := make(chan error)
	go func() { done <- inf.Run(ctx) }()
	defer func() { cancel(); <-done }()
	if err := inf.WaitForSync(ctx); err != nil {
		panic(err)
	}
	cached, _ := inf.Lister().Get("default", "settings")

	// A label: no read, conflicts retried.
	_, err = apiclient.UpdateMetadata[ConfigMap](ctx, client, inf.Ref(), "settings",
		apiclient.MetadataChange{SetLabels: map[string]string{"checked": "yes"}})
	fmt.Println("label:", err)

	// A data field, decided from the cached copy: the label write came
	// between, so its resourceVersion is stale and the server refuses.
	guarded := func(rv string) error {
		patch := fmt.Sprintf(`{"metadata":{"resourceVersion":%q},"data":{"mode":"on"}}`, rv)
		_, err := apiclient.Patch[ConfigMap](ctx, client, inf.Ref(), "settings", meta.MergePatch, []byte(patch))
		return err
	}
	fmt.Println("stale resourceVersion refused:", meta.IsConflict(guarded(cached.ResourceVersion)))

	// Decide again from a fresh read on each try.
	err = client.RetryOnConflict(ctx, apiclient.ConflictRetry{}, func(ctx context.Context) error {
		fresh, err := apiclient.Get[ConfigMap](ctx, client, inf.Ref(), "settings")
		if err != nil {
			return err
		}
		return guarded(fresh.ResourceVersion)
	})
	fmt.Println("guarded patch:", err)

	// Read back whole: the label and the data the slim type never held
	// are both there.
	whole, err := apiclient.Get[wholeConfigMap](ctx, client, inf.Ref(), "settings")
	if err != nil {
		panic(err)
	}
	fmt.Println("labels:", whole.Labels)
	fmt.Println("data:", whole.Data)
	// Output:
	// resolved: v1/configmaps in namespace default
	// label: <nil>
	// stale resourceVersion refused: true
	// guarded patch: <nil>
	// labels: map[checked:yes]
	// data: map[keep:me mode:on]
}
