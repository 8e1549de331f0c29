package informer_test

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/zerokube/zerokube/apiclient"
	"github.com/zerokube/zerokube/informer"
	"github.com/zerokube/zerokube/informer/observe"
)

// The cache audit: a watch event lost on the way (here the fake server's
// drop-event fault) leaves the cache different from the server, and the
// next audit says which object and how.
func ExampleAuditOptions() {
	srv, client := startServer()
	defer srv.Close()
	audited := make(chan error, 10)
	inf := informer.New[Pod](client, apiclient.Ref{GVR: podsGVR, Namespace: "default"}, informer.Options[*Pod]{
		Audit: informer.AuditOptions{Period: 20 * time.Millisecond},
		Observe: informer.ObserveOptions{
			Logger: slog.New(slog.DiscardHandler),
			Trace: func(ev observe.Event) {
				if ev.Stage == observe.StageAudited {
					select {
					case audited <- ev.Err:
					default: // nobody reads any more: a Trace must not block
					}
				}
			},
		},
	})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- inf.Run(ctx) }()
	if err := inf.WaitForSync(ctx); err != nil {
		panic(err)
	}
	fmt.Println("in step:", <-audited == nil)

	if err := srv.AwaitWatchers(ctx, 1); err != nil {
		panic(err)
	}
	srv.DropNextWatchEvent()
	for _, name := range []string{"lost", "seen"} {
		if _, err := srv.Create(podsGVR, `{"metadata":{"name":"`+name+`","namespace":"default"},"spec":{"containers":[{"name":"c"}]}}`); err != nil {
			panic(err)
		}
	}
	// The cache hears of "seen", not of "lost"; an audit after that finds
	// the difference.
	deadline := time.After(10 * time.Second)
	for {
		select {
		case err := <-audited:
			if err == nil {
				continue // an audit before "seen" arrived: in step
			}
			fmt.Println(err)
		case <-deadline:
			panic("no audit found the lost event")
		}
		break
	}
	h := inf.Health()
	fmt.Println("diverged:", h.Diverged, "healthy:", h.Healthy())

	cancel()
	<-done
	// Output:
	// in step: true
	// informer: the cache differs from the server at resourceVersion 7: 1 missing, 0 extra, 0 stale (default/lost)
	// diverged: true healthy: false
}
