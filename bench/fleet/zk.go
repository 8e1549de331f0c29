package fleet

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"sync/atomic"

	"github.com/zerokube/zerokube/apiclient"
	"github.com/zerokube/zerokube/apiclient/kubeconfig"
	"github.com/zerokube/zerokube/informer"
	"github.com/zerokube/zerokube/informer/observe"
	"github.com/zerokube/zerokube/internal/workload"
	"github.com/zerokube/zerokube/meta"
	"github.com/zerokube/zerokube/snapshot"
)

// ZK is a fleet of zerokube agents: each a SlimPod informer (name,
// namespace, uid, labels, node, phase, IP) over an apiclient.Client of its
// own (its own HTTP transport, so its own connection), with the
// informer's defaults: protobuf, a LIST at resourceVersion 0 (one
// response from the watch cache) unless the options say "stream", and
// snapshots in SnapDir (one file per agent, saved every minute and at a
// clean stop) with "snap"; with "snap,notls" the snapshots come back
// without the TLS session saved in them.
type ZK struct {
	c       ChildConfig
	cfg     *apiclient.Config
	updates atomic.Int64

	// the agents of the current start
	cancel  context.CancelFunc
	runs    sync.WaitGroup
	clients []*apiclient.Client
	runErr  atomic.Pointer[error]
	// what the current start's reflectors did, from their traces
	lists, pages, streams, resumed atomic.Int64
}

// NewZK returns the fleet c describes; nothing starts before Start.
func NewZK(c ChildConfig) (*ZK, error) {
	cfg, err := kubeconfig.LoadFile(c.Kubeconfig, "")
	if err != nil {
		return nil, err
	}
	cfg.QPS = -1 // as for client-go's agents: no client-side rate limit
	if c.Has("snap") && c.SnapDir == "" {
		return nil, errors.New("fleet: snapshots need -snapdir")
	}
	return &ZK{c: c, cfg: cfg}, nil
}

// Start implements Agents.
func (z *ZK) Start(ctx context.Context) (int, error) {
	if z.cancel != nil {
		return 0, errors.New("fleet: zerokube agents already running")
	}
	z.lists.Store(0)
	z.pages.Store(0)
	z.streams.Store(0)
	z.resumed.Store(0)
	z.runErr.Store(nil)
	runCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	z.cancel = cancel
	z.clients = make([]*apiclient.Client, z.c.Agents)
	infs := make([]*informer.Informer[workload.SlimPod, *workload.SlimPod], z.c.Agents)
	errs := make([]error, z.c.Agents)
	var wg sync.WaitGroup
	for i := range z.c.Agents {
		wg.Go(func() {
			inf, cl, err := z.agent(i)
			if err != nil {
				errs[i] = err
				return
			}
			z.clients[i], infs[i] = cl, inf
			z.runs.Go(func() {
				if err := inf.Run(runCtx); err != nil && runCtx.Err() == nil {
					err = fmt.Errorf("fleet: agent %d: %w", i, err)
					z.runErr.CompareAndSwap(nil, &err)
				}
			})
			if err := inf.WaitForSync(ctx); err != nil {
				errs[i] = fmt.Errorf("fleet: agent %d: %w", i, err)
			}
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return 0, err
	}
	n := 0
	for _, inf := range infs {
		n += inf.Store().Len()
	}
	return n, nil
}

// agent builds agent i and its client.
func (z *ZK) agent(i int) (*informer.Informer[workload.SlimPod, *workload.SlimPod], *apiclient.Client, error) {
	cfg := *z.cfg
	cl, err := apiclient.New(&cfg)
	if err != nil {
		return nil, nil, err
	}
	opts := informer.Options[*workload.SlimPod]{
		Name:          fmt.Sprintf("agent-%04d", i),
		FieldSelector: z.c.FieldSelector(i),
		Sync:          informer.SyncOptions{StreamingList: z.c.Has("stream")},
		Observe: informer.ObserveOptions{
			Logger: slog.New(slog.DiscardHandler),
			Trace:  z.trace,
		},
	}
	sel, err := z.c.Shard(i)
	if err != nil {
		return nil, nil, err
	}
	if !sel.IsEverything() {
		if opts.Shard, err = informer.NewShard(sel); err != nil {
			return nil, nil, err
		}
	}
	if z.c.Has("snap") {
		opts.Snapshot = informer.SnapshotOptions{Dir: z.c.SnapDir}
		if z.c.Has("notls") {
			opts.Snapshot.Store = withoutSession{snapshot.Dir{Path: z.c.SnapDir}}
		}
	}
	inf := informer.New[workload.SlimPod](cl, PodsRef, opts)
	h := informer.HandlerFuncs[*workload.SlimPod]{UpdateFunc: func(_, _ *workload.SlimPod) { z.updates.Add(1) }}
	if _, err := inf.AddHandler(h, informer.HandlerOptions{}); err != nil {
		return nil, nil, err
	}
	return inf, cl, nil
}

func (z *ZK) trace(ev observe.Event) {
	switch {
	case ev.Stage == observe.StageListPage:
		z.pages.Add(1)
		if ev.Page == 1 {
			z.lists.Add(1)
		}
	case ev.Stage == observe.StageWatchOpened && ev.Streaming:
		z.streams.Add(1)
	case ev.Stage == observe.StageSnapshotLoaded:
		z.resumed.Add(1)
	}
}

// Stop implements Agents.
func (z *ZK) Stop() error {
	if z.cancel == nil {
		return nil
	}
	z.cancel()
	z.runs.Wait()
	for _, c := range z.clients {
		if c != nil {
			c.CloseIdleConnections()
		}
	}
	z.cancel, z.clients = nil, nil
	if p := z.runErr.Load(); p != nil {
		return *p
	}
	return nil
}

// Updates implements Agents.
func (z *ZK) Updates() int64 { return z.updates.Load() }

// Note implements Agents: what the last start's agents did.
func (z *ZK) Note() string {
	tls := 0
	for _, c := range z.clients {
		if c != nil && c.TLSResumed() {
			tls++
		}
	}
	return fmt.Sprintf("%d LISTs in %d pages, %d streaming lists, %d resumed from snapshots (%d over the TLS session saved with them); protobuf asked",
		z.lists.Load(), z.pages.Load(), z.streams.Load(), z.resumed.Load(), tls)
}

var _ meta.Object = (*workload.SlimPod)(nil)

// withoutSession is a snapshot store whose snapshots come back without
// the TLS session saved in them (the "notls" option): the agent then
// checks its snapshot with a GET of the cluster's id and a LIST of one
// item before its WATCH, as every resumed agent did before issue #40, so
// that both costs are measured in one run.
type withoutSession struct{ snapshot.Store }

func (s withoutSession) Load(ctx context.Context, name string) (io.ReadCloser, error) {
	rc, err := s.Store.Load(ctx, name)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	r, err := snapshot.NewReader(rc, snapshot.ReadOptions{})
	if err != nil {
		return nil, err
	}
	h := r.Header()
	h.TLSSession = nil
	var buf bytes.Buffer
	w, err := snapshot.NewWriter(&buf, h)
	if err != nil {
		return nil, err
	}
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		if err := w.Record(rec); err != nil {
			return nil, err
		}
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return io.NopCloser(&buf), nil
}
