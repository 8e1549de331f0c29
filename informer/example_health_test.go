package informer_test

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"

	"github.com/zerokube/zerokube/apiclient"
	"github.com/zerokube/zerokube/informer"
)

// An agent's /healthz: 200 while every informer is synced and has heard
// from the server recently, 503 with the reason otherwise.
func ExampleHealthHandler() {
	srv, client := startServer()
	defer srv.Close()
	inf := informer.New[Pod](client, apiclient.Ref{GVR: podsGVR, Namespace: "default"},
		informer.Options[*Pod]{Observe: informer.ObserveOptions{Logger: slog.New(slog.DiscardHandler)}})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- inf.Run(ctx) }()
	if err := inf.WaitForSync(ctx); err != nil {
		panic(err)
	}

	mux := http.NewServeMux()
	mux.Handle("/healthz", informer.HealthHandler(inf))
	rec := httptest.NewRecorder()
	mux.ServeHTTP(rec, httptest.NewRequest("GET", "/healthz", nil))
	h := inf.Health()
	fmt.Println(rec.Code, h.Healthy(), h.Synced, h.Stale, h.Failure == nil)

	cancel()
	<-done
	// Output: 200 true true false true
}
