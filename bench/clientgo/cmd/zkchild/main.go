// Command zkchild runs one zerokube informer variant for the comparison
// (see the driver, cmd/compare): zk-raw (meta.Raw), zk-full (the whole
// meta.ObjectMeta and three fields), zk-slim (meta.SlimMeta and three
// fields) or zk-meta (metaPod: kind, apiVersion and meta.SlimMeta, nothing
// beyond metadata, so the informer asks for meta.k8s.io/v1
// PartialObjectMetadata, as client-go's metadata informer does), each with
// the informer's defaults unless -opts says otherwise:
//
//	full     ask for whole objects even for zk-meta
//	         (informer.Transport.FullObjects)
//	trace    note what the informer asked for from its trace (relist and
//	         watch-opened say metadata=true for PartialObjectMetadata)
//	         instead of from the rule; a trace function costs every delta
//	         a call, so the measured rows leave it off
//	stream   sync with a streaming list (sendInitialEvents); without it a
//	         paged LIST, the informer's default
//	json     ask for JSON (informer.Transport.JSON); without it pods, a
//	         built-in kind, come as protobuf, the informer's default
//	keepmf   keep managedFields (Options.Decode.KeepManagedFields)
//	nogzip   do not ask for gzip (apiclient.Config.DisableCompression)
//	ws       watch over a websocket (informer.Transport.Websocket): a
//	         connection of its own, read by the reflector's goroutine
//	h1       HTTP/1.1 instead of HTTP/2 (GODEBUG=http2client=0): no
//	         readLoop goroutine between the socket and the watch decoder,
//	         no WINDOW_UPDATE written per event
//	wh1      watches over HTTP/1.1, a connection each, everything else
//	         over HTTP/2 (apiclient.Options.WatchHTTP1): no HTTP/2 read
//	         loop between the socket and the watch decoder, no
//	         WINDOW_UPDATE written per event
//	noshare  every object with label and annotation maps of its own
//	         (Options.Decode.Sharer = meta.NewSharer(0)), as before the informer
//	         shared them
//	inline   deltas are processed on the reflector's goroutine
//	         (informer.Options.Process.InlineProcessing): no processing loop to wake
//	sync     inline, and the handler is synchronous
//	         (informer.HandlerOptions.Synchronous): called on the reflector's
//	         goroutine, the fewest goroutine hops per event
package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"sync/atomic"

	"github.com/zerokube/zerokube/apiclient"
	"github.com/zerokube/zerokube/apiclient/kubeconfig"
	"github.com/zerokube/zerokube/apiclient/websocket"
	"github.com/zerokube/zerokube/bench/clientgo/internal/probe"
	"github.com/zerokube/zerokube/bench/internal/poll"
	"github.com/zerokube/zerokube/informer"
	"github.com/zerokube/zerokube/informer/observe"
	"github.com/zerokube/zerokube/internal/workload"
	"github.com/zerokube/zerokube/meta"
)

func main() { probe.Main(start) }

func start(ctx context.Context, f probe.Flags, adds *probe.Counter, rec *probe.Recorder) (any, error) {
	cfg, err := kubeconfig.LoadFile(f.Kubeconfig, "")
	if err != nil {
		return nil, err
	}
	cfg.QPS = -1
	if probe.Has(f.Opts, "h1") {
		// net/http reads GODEBUG again when it changes, and decides on
		// HTTP/2 at the first request.
		if err := os.Setenv("GODEBUG", "http2client=0"); err != nil {
			return nil, err
		}
	}
	cfg.DisableCompression = probe.Has(f.Opts, "nogzip")
	c, err := apiclient.NewWithOptions(cfg, apiclient.Options{WatchHTTP1: probe.Has(f.Opts, "wh1")})
	if err != nil {
		return nil, err
	}
	switch f.Variant {
	case "zk-raw":
		return run[meta.Raw](ctx, c, f, adds, rec)
	case "zk-full":
		return run[workload.SlimPodFullMeta](ctx, c, f, adds, rec)
	case "zk-slim":
		return run[workload.SlimPod](ctx, c, f, adds, rec)
	case "zk-meta":
		return run[metaPod](ctx, c, f, adds, rec)
	}
	return nil, fmt.Errorf("zkchild: unknown variant %q", f.Variant)
}

// metaPod is what a user who needs only a pod's name, namespace and
// labels declares: the informer feeds it from PartialObjectMetadata.
type metaPod struct {
	meta.TypeMeta
	meta.SlimMeta `json:"metadata"`
}

func run[T any, P meta.PtrObject[T]](ctx context.Context, c *apiclient.Client, f probe.Flags, adds *probe.Counter, rec *probe.Recorder) (any, error) {
	opts := informer.Options[P]{
		Observe: informer.ObserveOptions{Logger: slog.New(slog.DiscardHandler)},
		Sync:    informer.SyncOptions{StreamingList: probe.Has(f.Opts, "stream")},
		Decode:  informer.DecodeOptions[P]{KeepManagedFields: probe.Has(f.Opts, "keepmf")},
		Transport: informer.Transport{
			JSON:        probe.Has(f.Opts, "json"),
			FullObjects: probe.Has(f.Opts, "full"),
		},
		Process: informer.ProcessOptions{InlineProcessing: probe.Has(f.Opts, "inline") || probe.Has(f.Opts, "sync")},
	}
	if probe.Has(f.Opts, "ws") {
		opts.Transport.Websocket = websocket.Dialer{}
	}
	if probe.Has(f.Opts, "noshare") {
		opts.Decode.Sharer = meta.NewSharer(0)
	}
	mode, enc := "list", "protobuf"
	if opts.Sync.StreamingList {
		mode = "watch-list"
	}
	if opts.Transport.JSON {
		enc = "json"
	}
	note := mode + ", " + enc
	var asked, full atomic.Bool
	if probe.Has(f.Opts, "trace") {
		opts.Observe.Trace = func(e observe.Event) {
			if e.Stage == observe.StageRelist || e.Stage == observe.StageWatchOpened {
				asked.Store(true)
				if !e.Metadata {
					full.Store(true)
				}
			}
		}
	} else if f.Variant == "zk-meta" && !opts.Transport.FullObjects {
		// The informer's rule (informer/options.go, asksMetadata): a type
		// with nothing beyond metadata, FullObjects unset.
		note += ", PartialObjectMetadata"
	}
	inf := informer.New[T, P](c, apiclient.Ref{GVR: meta.GVR{Version: "v1", Resource: "pods"}}, opts)
	h := informer.HandlerFuncs[P]{
		AddFunc:    func(P, bool) { adds.Add() },
		UpdateFunc: func(_, p P) { rec.Observe(p.GetLabels()) },
	}
	if _, err := inf.AddHandler(h, informer.HandlerOptions{Synchronous: probe.Has(f.Opts, "sync")}); err != nil {
		return nil, err
	}
	// The informer runs until the process exits: the child measures, prints
	// and ends.
	go func() { _ = inf.Run(context.WithoutCancel(ctx)) }()
	if err := inf.WaitForSync(ctx); err != nil {
		return nil, err
	}
	if err := poll.Await(ctx, func() bool { return adds.Load() >= f.N }); err != nil {
		return nil, fmt.Errorf("%w: %d adds of %d", probe.ErrCount, adds.Load(), f.N)
	}
	if asked.Load() && !full.Load() {
		note += ", PartialObjectMetadata (traced)"
	}
	probe.SetNote(note)
	return inf, nil
}
