package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/zerokube/zerokube/apiclient"
	"github.com/zerokube/zerokube/bench/fleet"
	"github.com/zerokube/zerokube/internal/workload"
	"github.com/zerokube/zerokube/meta"
)

// workloadConfig is the client-go comparison workload of bench/: pods of
// about 9.5 KB with 4.3 KB of managedFields (the 9.2 KB and 4 KB).
var workloadConfig = workload.Config{PodSize: 9 << 10, AtomicLists: true}

var (
	podsRef = apiclient.Ref{GVR: meta.GVR{Version: "v1", Resource: "pods"}}
	nsRef   = apiclient.Ref{GVR: meta.GVR{Version: "v1", Resource: "namespaces"}}
)

// loader creates the workload's pods on the server, in order.
type loader struct {
	srv    *server
	loaded int
	pods   []podName // every pod created, for the writes
}

type podName struct{ namespace, name string }

func newLoader(ctx context.Context, srv *server) (*loader, error) {
	if err := fleet.Prepare(ctx, srv.Client, srv.Real, workloadConfig.NamespaceNames()); err != nil {
		return nil, fmt.Errorf("compare: %w", err)
	}
	return &loader{srv: srv}, nil
}

// loadTo creates pods until n exist, on a few connections at once.
func (l *loader) loadTo(ctx context.Context, n int) error {
	if n <= l.loaded {
		return nil
	}
	names, err := fleet.Parallel(l.loaded, n, func(i int) (podName, error) { return l.create(ctx, i) })
	if err != nil {
		return err
	}
	l.pods = append(l.pods, names...)
	l.loaded = n
	return nil
}

// create posts pod i of the workload (fleet.CreatablePod).
func (l *loader) create(ctx context.Context, i int) (podName, error) {
	obj, err := fleet.CreatablePod(workloadConfig.PodJSON(i), l.srv.Real, nil)
	if err != nil {
		return podName{}, fmt.Errorf("compare: workload pod %d: %w", i, err)
	}
	p := podName{obj.Namespace, obj.Name}
	if _, err := apiclient.Create(ctx, l.srv.Client, podsRef.Namespaced(p.namespace), obj); err != nil && !meta.IsAlreadyExists(err) {
		return p, fmt.Errorf("compare: pod %d (%s/%s): %w", i, p.namespace, p.name, err)
	}
	return p, nil
}

// meanSize lists every pod (paginated, as the informers do) and returns
// the mean size of an item's JSON.
func (l *loader) meanSize(ctx context.Context) (float64, error) {
	var total, n int
	_, err := apiclient.ListAll(ctx, l.srv.Client, podsRef, apiclient.ListOptions{Limit: 500}, nil, func(r *sized) error {
		total += r.size
		n++
		return nil
	})
	if err != nil {
		return 0, err
	}
	if n != l.loaded {
		return 0, errors.New("compare: the server lists " + fmt.Sprint(n) + " pods, " + fmt.Sprint(l.loaded) + " were created")
	}
	return float64(total) / float64(max(n, 1)), nil
}

// sized is a pod's name and the size of its JSON.
type sized struct {
	meta.SlimMeta
	size int
}

// UnmarshalJSONFrom implements json.UnmarshalerFrom.
func (s *sized) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	v, err := dec.ReadValue()
	if err != nil {
		return err
	}
	s.size = len(v)
	var m struct {
		Meta meta.SlimMeta `json:"metadata"`
	}
	err = json.Unmarshal(v, &m)
	s.SlimMeta = m.Meta
	return err
}
