package leaderelection_test

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/zerokube/zerokube/apiclient"
	"github.com/zerokube/zerokube/fakeapiserver"
	"github.com/zerokube/zerokube/fakeapiserver/fakeapiservertest"
	"github.com/zerokube/zerokube/leaderelection"
)

// Two replicas of a controller campaign for one Lease: a leads, b waits
// and knows who leads; when a is stopped it releases the Lease and b takes
// over at its next attempt, without waiting for the lease to expire.
func Example() {
	srv := fakeapiserver.New(fakeapiserver.Options{Logger: slog.New(slog.DiscardHandler)})
	if err := srv.Start(context.Background()); err != nil {
		fmt.Println(err)
		return
	}
	defer srv.Close()
	client, err := apiclient.New(fakeapiservertest.ClientConfig(srv))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer client.CloseIdleConnections()

	led := make(chan string, 2)
	replica := func(id string, sawLeader chan<- string) *leaderelection.Elector {
		el, err := leaderelection.New(leaderelection.Config{
			Client: client, Namespace: "default", Name: "my-controller", Identity: id,
			// Short, for the example; the defaults are 15 s, 10 s and 2 s.
			LeaseDuration: time.Second, RenewDeadline: 500 * time.Millisecond, RetryPeriod: 50 * time.Millisecond,
			OnStartedLeading: func(ctx context.Context) {
				led <- id
				<-ctx.Done() // the controller's workers run until here
			},
			OnStoppedLeading: func() { fmt.Println(id, "stopped leading") },
			OnNewLeader: func(leader string) {
				if sawLeader != nil {
					sawLeader <- leader
				}
			},
			Logger: slog.New(slog.DiscardHandler),
		})
		if err != nil {
			panic(err)
		}
		return el
	}

	ctxA, stopA := context.WithCancel(context.Background())
	a := replica("a", nil)
	doneA := make(chan error, 1)
	go func() { doneA <- a.Run(ctxA) }()
	fmt.Println(<-led, "leads")

	saw := make(chan string, 4)
	ctxB, stopB := context.WithCancel(context.Background())
	b := replica("b", saw)
	doneB := make(chan error, 1)
	go func() { doneB <- b.Run(ctxB) }()
	fmt.Println("b sees", <-saw, "leading")

	stopA() // a's work ends, a releases the Lease
	fmt.Println("a's Run returned", <-doneA)
	fmt.Println(<-led, "leads")
	stopB()
	<-doneB
	// Output:
	// a leads
	// b sees a leading
	// a stopped leading
	// a's Run returned <nil>
	// b leads
	// b stopped leading
}
