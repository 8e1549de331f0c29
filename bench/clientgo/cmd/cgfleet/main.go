// Command cgfleet is client-go's child of the fleet benchmark
// (bench/fleet): N agents in one process, each a SharedInformerFactory pod
// informer over a clientset with a connection of its own, narrowed to its
// node's pods (field selector spec.nodeName) or to its shard
// (ListOptions.ShardSelector), driven by the line protocol of
// fleet.ServeChild. Options (-opts):
//
//	(none)  client-go's defaults: v0.37 syncs with a streaming list (its
//	        WatchListClient gate, on by default since 1.35) and asks for
//	        protobuf for pods
//	list    a LIST then a WATCH (the gate off: KUBE_FEATURE_WatchListClient=false)
package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/zerokube/zerokube/bench/fleet"
	"github.com/zerokube/zerokube/bench/internal/poll"
)

func main() {
	c, err := fleet.ParseChildConfig(os.Args[1:])
	if err == nil {
		err = run(c)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "cgfleet:", err)
		os.Exit(1)
	}
}

func run(c fleet.ChildConfig) error {
	if c.Has("list") {
		// Read once, when the first reflector is built.
		if err := os.Setenv("KUBE_FEATURE_WatchListClient", "false"); err != nil {
			return err
		}
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", c.Kubeconfig)
	if err != nil {
		return err
	}
	cfg.QPS = -1 // client-go: a QPS below zero turns the limiter off
	return fleet.ServeChild(context.Background(), os.Stdin, os.Stdout, &agents{c: c, cfg: cfg}, 10*time.Minute)
}

// agents implements fleet.Agents with client-go.
type agents struct {
	c       fleet.ChildConfig
	cfg     *rest.Config
	updates atomic.Int64

	stop      chan struct{}
	factories []informers.SharedInformerFactory
	transport []*http.Transport
	// what the current start did, seen on the wire
	streamed, listed, proto atomic.Int64
}

func (a *agents) Start(ctx context.Context) (int, error) {
	if a.stop != nil {
		return 0, errors.New("cgfleet: already running")
	}
	a.streamed.Store(0)
	a.listed.Store(0)
	a.proto.Store(0)
	a.stop = make(chan struct{})
	a.factories = make([]informers.SharedInformerFactory, a.c.Agents)
	a.transport = make([]*http.Transport, a.c.Agents)
	infs := make([]cache.SharedIndexInformer, a.c.Agents)
	errs := make([]error, a.c.Agents)
	var wg sync.WaitGroup
	for i := range a.c.Agents {
		wg.Go(func() {
			inf, err := a.agent(i)
			if err != nil {
				errs[i] = err
				return
			}
			infs[i] = inf
			a.factories[i].Start(a.stop)
			if err := poll.Await(ctx, inf.HasSynced); err != nil { // WaitForCacheSync polls every 100 ms: too coarse for a sync time
				errs[i] = fmt.Errorf("cgfleet: agent %d: %w", i, err)
			}
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return 0, err
	}
	n := 0
	for _, inf := range infs {
		n += len(inf.GetStore().ListKeys())
	}
	return n, nil
}

// agent builds agent i: a clientset of its own. client-go shares one
// transport, and so one connection, among clients with equal TLS settings
// (k8s.io/client-go/transport/cache.go, tlsConfigKey); a Dial of each
// agent's own gives it a transport, and a connection, of its own, as a
// process of its own would have.
func (a *agents) agent(i int) (cache.SharedIndexInformer, error) {
	cfg := rest.CopyConfig(a.cfg)
	cfg.Dial = (&net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}).DialContext
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper {
		if t, ok := rt.(*http.Transport); ok {
			a.transport[i] = t
		}
		return sniff{rt, a}
	})
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	sel, err := a.c.Shard(i)
	if err != nil {
		return nil, err
	}
	field := a.c.FieldSelector(i)
	f := informers.NewSharedInformerFactoryWithOptions(cs, 0, informers.WithTweakListOptions(func(o *metav1.ListOptions) {
		o.FieldSelector = field
		if !sel.IsEverything() {
			o.ShardSelector = sel.String()
		}
	}))
	a.factories[i] = f
	inf := f.Core().V1().Pods().Informer()
	_, err = inf.AddEventHandler(cache.ResourceEventHandlerFuncs{UpdateFunc: func(_, _ any) { a.updates.Add(1) }})
	return inf, err
}

func (a *agents) Stop() error {
	if a.stop == nil {
		return nil
	}
	close(a.stop)
	for _, f := range a.factories {
		f.Shutdown()
	}
	for _, t := range a.transport {
		if t != nil {
			t.CloseIdleConnections()
		}
	}
	a.stop, a.factories, a.transport = nil, nil, nil
	return nil
}

func (a *agents) Updates() int64 { return a.updates.Load() }

func (a *agents) Note() string {
	mode := "list"
	if a.streamed.Load() > 0 {
		mode = "watch-list"
	}
	w := "json"
	if a.proto.Load() > 0 {
		w = "protobuf"
	}
	return fmt.Sprintf("%s, %s (%d streaming lists, %d LIST requests)", mode, w, a.streamed.Load(), a.listed.Load())
}

// sniff counts streaming lists (sendInitialEvents) and LISTs, and notes
// whether a reply came as protobuf.
type sniff struct {
	rt http.RoundTripper
	a  *agents
}

func (s sniff) RoundTrip(r *http.Request) (*http.Response, error) {
	q := r.URL.RawQuery
	switch {
	case strings.Contains(q, "sendInitialEvents=true"):
		s.a.streamed.Add(1)
	case !strings.Contains(q, "watch=true"):
		s.a.listed.Add(1)
	}
	resp, err := s.rt.RoundTrip(r)
	if err == nil && strings.HasPrefix(resp.Header.Get("Content-Type"), "application/vnd.kubernetes.protobuf") {
		s.a.proto.Add(1)
	}
	return resp, err
}
