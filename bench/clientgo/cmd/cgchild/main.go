// Command cgchild runs one client-go SharedIndexInformer variant for the
// comparison (see the driver, cmd/compare), as a user of client-go writes
// it: a SharedInformerFactory's pod informer (namespace index included)
// over a typed clientset with client-go's defaults, except the rate limit,
// which is off as it is for zerokube's children.
//
//	cg-json        typed pods, JSON (asked for: client-go's default is protobuf)
//	cg-proto       typed pods, protobuf (a real kube-apiserver only)
//	cg-json-strip  typed pods, JSON, a transform that drops managedFields
//	cg-meta        client-go's metadata informer (k8s.io/client-go/metadata
//	               and metadatainformer): *metav1.PartialObjectMetadata,
//	               asked for in protobuf (metadata.ConfigFor), with JSON as
//	               the server's fallback
//
// Options (-opts) set how the informer syncs, through client-go's
// WatchListClient feature gate (an environment variable,
// KUBE_FEATURE_WatchListClient, read once, when the reflector is built):
//
//	list    a paged LIST, then a watch (the gate off)
//	stream  a streaming list (sendInitialEvents; the gate on, v0.37's
//	        default: k8s.io/client-go features/known_features.go, Beta
//	        and on by default since 1.35)
//
// With neither the gate keeps its default. The note says which was used.
package main

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"strings"
	"sync/atomic"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/metadata/metadatainformer"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/zerokube/zerokube/bench/clientgo/internal/probe"
	"github.com/zerokube/zerokube/bench/internal/poll"
)

func main() { probe.Main(start) }

func start(ctx context.Context, f probe.Flags, adds *probe.Counter, rec *probe.Recorder) (any, error) {
	cfg, err := clientcmd.BuildConfigFromFlags("", f.Kubeconfig)
	if err != nil {
		return nil, err
	}
	cfg.QPS = -1 // client-go: a QPS below zero turns the limiter off
	if err := watchListGate(f.Opts); err != nil {
		return nil, err
	}
	var opts []informers.SharedInformerOption
	// JSON must be asked for: with ContentType unset, v0.37's typed
	// clients of built-in kinds ask for protobuf (gentype.PrefersProtobuf on
	// the pod client, Request.UseProtobufAsDefault in client-go's rest), so
	// the JSON rows were protobuf against kube-apiserver and JSON only
	// against fakeapiserver, which then spoke nothing else.
	json := func() {
		cfg.ContentType = "application/json"
		cfg.AcceptContentTypes = "application/json"
	}
	switch f.Variant {
	case "cg-json":
		json()
	case "cg-proto":
		cfg.ContentType = "application/vnd.kubernetes.protobuf"
		cfg.AcceptContentTypes = "application/vnd.kubernetes.protobuf,application/json"
	case "cg-json-strip":
		json()
		opts = append(opts, informers.WithTransform(stripManagedFields))
	case "cg-meta":
		// metadata.NewForConfig sets the content types itself.
	default:
		return nil, fmt.Errorf("cgchild: unknown variant %q", f.Variant)
	}
	var streamed, proto, partial atomic.Bool
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper { return sniff{rt, &streamed, &proto, &partial} })
	var (
		inf     cache.SharedIndexInformer
		factory interface{ Start(<-chan struct{}) }
	)
	if f.Variant == "cg-meta" {
		mc, err := metadata.NewForConfig(cfg)
		if err != nil {
			return nil, err
		}
		mf := metadatainformer.NewSharedInformerFactory(mc, 0)
		inf = mf.ForResource(schema.GroupVersionResource{Version: "v1", Resource: "pods"}).Informer()
		factory = mf
	} else {
		cs, err := kubernetes.NewForConfig(cfg)
		if err != nil {
			return nil, err
		}
		tf := informers.NewSharedInformerFactoryWithOptions(cs, 0, opts...)
		inf = tf.Core().V1().Pods().Informer()
		factory = tf
	}
	_, err = inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: func(any) { adds.Add() },
		UpdateFunc: func(_, obj any) {
			switch o := obj.(type) {
			case *corev1.Pod:
				rec.Observe(o.Labels)
			case *metav1.PartialObjectMetadata:
				rec.Observe(o.Labels)
			}
		},
	})
	if err != nil {
		return nil, err
	}
	factory.Start(context.WithoutCancel(ctx).Done())
	// cache.WaitForCacheSync polls every 100 ms; a 1 ms poll keeps that
	// granularity out of the sync time.
	if err := poll.Await(ctx, func() bool { return inf.HasSynced() && adds.Load() >= f.N }); err != nil {
		return nil, fmt.Errorf("%w: %d adds of %d", probe.ErrCount, adds.Load(), f.N)
	}
	notes := []string{"list", "json"}
	if streamed.Load() {
		notes[0] = "watch-list"
	}
	if proto.Load() {
		notes[1] = "protobuf"
	}
	if partial.Load() {
		notes = append(notes, "PartialObjectMetadata")
	}
	probe.SetNote(strings.Join(notes, ", "))
	return factory, nil
}

// watchListGate sets client-go's WatchListClient gate from the options,
// before anything reads it.
func watchListGate(opts string) error {
	const env = "KUBE_FEATURE_WatchListClient"
	switch {
	case probe.Has(opts, "list") && probe.Has(opts, "stream"):
		return fmt.Errorf("cgchild: options list and stream exclude each other")
	case probe.Has(opts, "list"):
		return os.Setenv(env, "false")
	case probe.Has(opts, "stream"):
		return os.Setenv(env, "true")
	}
	return nil
}

// stripManagedFields is the transform client-go users write to keep
// managedFields out of their cache.
func stripManagedFields(obj any) (any, error) {
	if m, ok := obj.(metav1.Object); ok {
		m.SetManagedFields(nil)
	}
	return obj, nil
}

// sniff notes whether the informer synced with a streaming list
// (sendInitialEvents), client-go's WatchListClient default since v0.35,
// whether any reply came as protobuf, and whether it asked for
// PartialObjectMetadata.
type sniff struct {
	rt                       http.RoundTripper
	streamed, proto, partial *atomic.Bool
}

func (s sniff) RoundTrip(r *http.Request) (*http.Response, error) {
	if strings.Contains(r.URL.RawQuery, "sendInitialEvents=true") {
		s.streamed.Store(true)
	}
	// The metadata client asks for
	// "...;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1" (and
	// "as=PartialObjectMetadata" for a watch) in its Accept header.
	if strings.Contains(r.Header.Get("Accept"), "as=PartialObjectMetadata") {
		s.partial.Store(true)
	}
	resp, err := s.rt.RoundTrip(r)
	if err == nil {
		ct := resp.Header.Get("Content-Type")
		if strings.HasPrefix(ct, "application/vnd.kubernetes.protobuf") {
			s.proto.Store(true)
		}
	}
	return resp, err
}
