package informer_test

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/zerokube/zerokube/apiclient"
	"github.com/zerokube/zerokube/fakeapiserver"
	"github.com/zerokube/zerokube/fakeapiserver/fakeapiservertest"
	"github.com/zerokube/zerokube/informer"
	"github.com/zerokube/zerokube/meta"
	"github.com/zerokube/zerokube/workqueue"
)

// Pod is a slim pod: the informer decodes and caches only these fields.
type Pod struct {
	meta.TypeMeta
	meta.ObjectMeta `json:"metadata"`
	Status          struct {
		Phase string `json:"phase"`
	} `json:"status"`
}

var podsGVR = meta.GVR{Version: "v1", Resource: "pods"}

// startServer starts a fake API server holding one pod.
func startServer() (*fakeapiserver.Server, *apiclient.Client) {
	srv := fakeapiserver.New(fakeapiserver.Options{Logger: slog.New(slog.DiscardHandler)})
	if err := srv.Start(context.Background()); err != nil {
		panic(err)
	}
	if _, err := srv.Create(podsGVR, `{"metadata":{"name":"web","namespace":"default"},"spec":{"containers":[{"name":"c"}]},"status":{"phase":"Pending"}}`); err != nil {
		panic(err)
	}
	c, err := apiclient.New(fakeapiservertest.ClientConfig(srv))
	if err != nil {
		panic(err)
	}
	return srv, c
}

// The article's quick start: an informer on pods with a handler, and a
// resync every 50 ms that redelivers every object as an update.
func Example() {
	srv, client := startServer()
	defer srv.Close()

	inf := informer.New[Pod](client, apiclient.Ref{GVR: podsGVR, Namespace: "default"},
		informer.Options[*Pod]{Process: informer.ProcessOptions{ResyncPeriod: 50 * time.Millisecond}, Observe: informer.ObserveOptions{Logger: slog.New(slog.DiscardHandler)}})
	seen := make(chan string, 10)
	_, _ = inf.AddHandler(informer.HandlerFuncs[*Pod]{
		AddFunc:    func(p *Pod, initial bool) { seen <- fmt.Sprint("Add: ", meta.Key(p), " initial=", initial) },
		UpdateFunc: func(old, p *Pod) { seen <- fmt.Sprint("Update: ", meta.Key(p), " resync=", old == p) },
	}, informer.HandlerOptions{})

	// A bound on every wait: a broken informer fails the example instead
	// of hanging it.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	done := make(chan error)
	go func() { done <- inf.Run(ctx) }()
	if err := inf.WaitForSync(ctx); err != nil {
		panic(err)
	}
	for range 3 {
		select {
		case line := <-seen:
			fmt.Println(line)
		case <-ctx.Done():
			panic("no notification within 30 s")
		}
	}
	cancel()
	<-done
	// Output:
	// Add: default/web initial=true
	// Update: default/web resync=true
	// Update: default/web resync=true
}

// The controller pattern: handlers only queue keys; a worker takes a key,
// reads the latest state from the lister and reconciles, retrying failures
// with backoff.
func Example_controller() {
	srv, client := startServer()
	defer srv.Close()
	ref := apiclient.Ref{GVR: podsGVR, Namespace: "default"}
	inf := informer.New[Pod](client, ref, informer.Options[*Pod]{Observe: informer.ObserveOptions{Logger: slog.New(slog.DiscardHandler)}})
	queue := workqueue.New(workqueue.Options[string]{})
	enqueue := func(p *Pod) { queue.Add(meta.Key(p)) }
	// Adding a key never blocks, so the handler can be Synchronous: no
	// goroutine of its own to wake per event.
	_, _ = inf.AddHandler(informer.HandlerFuncs[*Pod]{
		AddFunc:    func(p *Pod, _ bool) { enqueue(p) },
		UpdateFunc: func(_, p *Pod) { enqueue(p) },
		DeleteFunc: func(p *Pod, _ bool) { enqueue(p) },
	}, informer.HandlerOptions{Synchronous: true})

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second) // bounds every wait below
	done := make(chan error)
	go func() { done <- inf.Run(ctx) }()
	if err := inf.WaitForSync(ctx); err != nil {
		panic(err)
	}
	lister := inf.Lister()
	reconcile := func(key string) error {
		ns, name := meta.SplitKey(key)
		p, ok := lister.Namespace(ns).Get(name)
		if !ok {
			fmt.Println("reconcile", key, "→ gone")
			return nil
		}
		fmt.Println("reconcile", key, "→ phase", p.Status.Phase)
		return nil
	}
	work := func() {
		key, err := queue.Get(ctx)
		if err != nil {
			return
		}
		defer queue.Done(key)
		if err := reconcile(key); err != nil {
			queue.AddRateLimited(key)
			return
		}
		queue.Forget(key)
	}
	work()
	if _, err := srv.PatchStatus(podsGVR, "default", "web", meta.MergePatch, []byte(`{"status":{"phase":"Running"}}`)); err != nil {
		panic(err)
	}
	work()
	queue.ShutDown()
	cancel()
	<-done
	// Output:
	// reconcile default/web → phase Pending
	// reconcile default/web → phase Running
}
