package fleet

import (
	"context"
	"fmt"
	"runtime"
	"sync"

	"github.com/go-json-experiment/json"

	"github.com/zerokube/zerokube/apiclient"
	"github.com/zerokube/zerokube/internal/workload"
	"github.com/zerokube/zerokube/meta"
)

// Cluster is the pods a run loads: PodsPerNode on each of Nodes nodes,
// pod i on node i / PodsPerNode, so every node holds the same number and
// a larger cluster is a smaller one with nodes added.
type Cluster struct {
	Nodes, PodsPerNode int
	// PodSize is the workload's pod size (workload.Config.PodSize); 0:
	// the article's pod, about 5.3 KB with managedFields, status and spec.
	PodSize int
}

// Pods is how many pods the cluster holds.
func (c Cluster) Pods() int { return c.Nodes * c.PodsPerNode }

// NodeName is the name of node i.
func NodeName(i int) string { return fmt.Sprintf("node-%04d", i) }

func (c Cluster) workload() workload.Config {
	return workload.Config{PodSize: c.PodSize}
}

var (
	// PodsRef is the resource every agent lists and watches.
	PodsRef = apiclient.Ref{GVR: meta.GVR{Version: "v1", Resource: "pods"}}
	nsRef   = apiclient.Ref{GVR: meta.GVR{Version: "v1", Resource: "namespaces"}}
	pcRef   = apiclient.Ref{GVR: meta.GVR{Group: "scheduling.k8s.io", Version: "v1", Resource: "priorityclasses"}}
)

// PodName names a loaded pod.
type PodName struct{ Namespace, Name string }

// Load creates the cluster's namespaces and pods on srv, a few at a time,
// and returns the pods' names in order. The first from pods are taken to
// exist already (a smaller cluster Load created before); their names are
// not returned.
func Load(ctx context.Context, srv *Server, c Cluster, from int) ([]PodName, error) {
	w := c.workload()
	if err := Prepare(ctx, srv.Client, srv.Real, w.NamespaceNames()); err != nil {
		return nil, err
	}
	return Parallel(from, c.Pods(), func(i int) (PodName, error) { return createPod(ctx, srv, w, c, i) })
}

// Parallel runs fn for each i in [from, n) on a few goroutines per CPU (a
// server is loaded faster over several connections) and returns the
// results in i's order, or the first error; after an error no new i is
// started.
func Parallel[T any](from, n int, fn func(i int) (T, error)) ([]T, error) {
	out := make([]T, max(n-from, 0))
	errs := make(chan error, 1)
	next := make(chan int)
	var wg sync.WaitGroup
	for range 4 * runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for i := range next {
				v, err := fn(from + i)
				if err != nil {
					select {
					case errs <- err:
					default:
					}
					continue
				}
				out[i] = v
			}
		})
	}
feed:
	for i := range out {
		select {
		case next <- i:
		case err := <-errs:
			errs <- err
			break feed
		}
	}
	close(next)
	wg.Wait()
	select {
	case err := <-errs:
		return nil, err
	default:
	}
	return out, nil
}

// createPod posts pod i of the workload on node i / PodsPerNode.
func createPod(ctx context.Context, srv *Server, w workload.Config, c Cluster, i int) (PodName, error) {
	obj, err := CreatablePod(w.PodJSON(i), srv.Real, func(spec map[string]any) { spec["nodeName"] = NodeName(i / c.PodsPerNode) })
	if err != nil {
		return PodName{}, fmt.Errorf("fleet: workload pod %d: %w", i, err)
	}
	p := PodName{obj.Namespace, obj.Name}
	if _, err := apiclient.Create(ctx, srv.Client, PodsRef.Namespaced(p.Namespace), obj); err != nil && !meta.IsAlreadyExists(err) {
		return p, fmt.Errorf("fleet: pod %d (%s/%s): %w", i, p.Namespace, p.Name, err)
	}
	return p, nil
}

// CreatablePod is a generated pod (workload.Config.PodJSON) as a server
// takes it in a create: without the resourceVersion and uid the generator
// writes (kube-apiserver refuses the first and replaces the second), and
// on kube-apiserver (real) without spec.priority, which its Priority
// admission computes from the class and refuses when set otherwise. edit,
// if non-nil, changes the spec first.
func CreatablePod(podJSON []byte, real bool, edit func(spec map[string]any)) (*meta.Raw, error) {
	var pod map[string]any
	if err := json.Unmarshal(podJSON, &pod); err != nil {
		return nil, err
	}
	md, _ := pod["metadata"].(map[string]any)
	delete(md, "resourceVersion")
	delete(md, "uid")
	spec, _ := pod["spec"].(map[string]any)
	if spec == nil {
		return nil, fmt.Errorf("a pod without a spec")
	}
	if edit != nil {
		edit(spec)
	}
	if real {
		delete(spec, "priority")
	}
	pod["apiVersion"], pod["kind"] = "v1", "Pod"
	b, err := json.Marshal(pod, json.Deterministic(true))
	if err != nil {
		return nil, err
	}
	return meta.NewRaw(b)
}

// Prepare creates what the workload's pods need before they can be
// created: their namespaces and, on kube-apiserver (real), the
// PriorityClass "default" they name, which its Priority admission would
// otherwise refuse. Both may exist already.
func Prepare(ctx context.Context, c *apiclient.Client, real bool, namespaces []string) error {
	for _, ns := range namespaces {
		obj, err := meta.NewRaw(fmt.Appendf(nil, `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":%q}}`, ns))
		if err != nil {
			return err
		}
		if _, err := apiclient.Create(ctx, c, nsRef, obj); err != nil && !meta.IsAlreadyExists(err) {
			return fmt.Errorf("fleet: namespace %s: %w", ns, err)
		}
	}
	if !real {
		return nil
	}
	pc, err := meta.NewRaw([]byte(`{"apiVersion":"scheduling.k8s.io/v1","kind":"PriorityClass","metadata":{"name":"default"},"value":0}`))
	if err != nil {
		return err
	}
	if _, err := apiclient.Create(ctx, c, pcRef, pc); err != nil && !meta.IsAlreadyExists(err) {
		return fmt.Errorf("fleet: priority class: %w", err)
	}
	return nil
}
