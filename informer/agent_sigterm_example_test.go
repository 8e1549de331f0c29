//go:build unix

package informer_test

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/go-json-experiment/json"

	"github.com/zerokube/zerokube/apiclient"
	"github.com/zerokube/zerokube/informer"
	"github.com/zerokube/zerokube/leaderelection"
	"github.com/zerokube/zerokube/meta"
)

// SIGTERM, what the kubelet sends a pod it stops, ends an agent cleanly
// when its context listens for it (signal.NotifyContext with
// syscall.SIGTERM, not only os.Interrupt): the elector releases the Lease,
// so the next replica leads at once instead of after LeaseDuration (15 s),
// and the informer saves its snapshot as Run returns, for a warm restart.
func Example_sigterm() {
	srv, client := startNodes()
	defer srv.Close()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	bounded, cancel := context.WithTimeout(ctx, 30*time.Second) // bounds every wait
	defer cancel()
	dir, err := os.MkdirTemp("", "agent-snapshots-")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)

	inf := informer.New[NodePod](client, apiclient.Ref{GVR: podsGVR}, informer.Options[*NodePod]{
		Snapshot: informer.SnapshotOptions{Dir: dir},
		Observe:  informer.ObserveOptions{Logger: slog.New(slog.DiscardHandler)},
	})
	informerDone := make(chan error, 1)
	go func() { informerDone <- inf.Run(bounded) }()
	if err := inf.WaitForSync(bounded); err != nil {
		panic(err)
	}
	leading := make(chan struct{})
	el, err := leaderelection.New(leaderelection.Config{
		Client: client, Namespace: "default", Name: "agent", Identity: "replica-1",
		OnStartedLeading: func(ctx context.Context) { close(leading); <-ctx.Done() },
		Logger:           slog.New(slog.DiscardHandler),
	})
	if err != nil {
		panic(err)
	}
	electorDone := make(chan error, 1)
	go func() { electorDone <- el.Run(bounded) }()
	<-leading
	fmt.Println("leading:", holder(client))

	if err := syscall.Kill(os.Getpid(), syscall.SIGTERM); err != nil { // as the kubelet does
		panic(err)
	}
	fmt.Println("elector returned:", <-electorDone)
	<-informerDone
	fmt.Println("after SIGTERM:", holder(client))
	files, _ := os.ReadDir(dir)
	fmt.Println("snapshots saved:", len(files))
	// Output:
	// leading: "replica-1"
	// elector returned: <nil>
	// after SIGTERM: ""
	// snapshots saved: 1
}

// holder is the Lease's holderIdentity, quoted.
func holder(c *apiclient.Client) string {
	var lease struct {
		Spec struct {
			HolderIdentity string `json:"holderIdentity"`
		} `json:"spec"`
	}
	raw, err := apiclient.Get[meta.Raw](context.Background(), c,
		apiclient.Ref{GVR: meta.GVR{Group: "coordination.k8s.io", Version: "v1", Resource: "leases"}, Namespace: "default"}, "agent")
	if err != nil {
		return err.Error()
	}
	if err := json.Unmarshal(raw.Bytes(), &lease); err != nil {
		return err.Error()
	}
	return fmt.Sprintf("%q", lease.Spec.HolderIdentity)
}
