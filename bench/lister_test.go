package bench_test

import (
	"context"
	"testing"
	"time"

	"github.com/zerokube/zerokube/informer"
	"github.com/zerokube/zerokube/internal/workload"
	"github.com/zerokube/zerokube/meta"
)

// BenchmarkLister is the read side a controller uses on every
// reconcile, over the synced cache of the article's 5,000 pods: a get by
// key, a namespace list through the namespace index, and label-selector
// lists (one namespace, and all of them). Objects returned are shared, so
// what allocates is only the result slices.
func BenchmarkLister(b *testing.B) {
	f := podFixture(b, 5000, workload.ArticlePodSize)
	r, err := startInformer[workload.SlimPod](memClient(b, f.pages), informer.Options[*workload.SlimPod]{})
	if err != nil {
		b.Fatal(err)
	}
	defer func() { _ = r.stop() }()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := r.inf.WaitForSync(ctx); err != nil {
		b.Fatal(err)
	}
	l := r.inf.Lister()
	some, ok := l.Get("team-07", podName(b, f.items[7]))
	if !ok {
		b.Fatal("bench: pod 7 not in the cache")
	}
	ns := some.Namespace
	app, err := meta.ParseLabelSelector("app.kubernetes.io/name=" + some.Labels["app.kubernetes.io/name"])
	if err != nil {
		b.Fatal(err)
	}
	set, err := meta.ParseLabelSelector("tier in (frontend,worker),app.kubernetes.io/part-of!=data")
	if err != nil {
		b.Fatal(err)
	}
	cases := []struct {
		name string
		op   func() int
	}{
		{"get", func() int { _, ok := l.Get(ns, some.Name); return btoi(ok) }},
		{"namespace", func() int { return len(l.Namespace(ns).List(meta.LabelSelector{})) }},
		{"namespace/selector=app", func() int { return len(l.Namespace(ns).List(app)) }},
		{"all/selector=app", func() int { return len(l.List(app)) }},
		{"all/selector=set", func() int { return len(l.List(set)) }},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			got := 0
			for b.Loop() {
				got = c.op()
			}
			b.ReportMetric(float64(got), "objects/op")
		})
	}
}

func btoi(ok bool) int {
	if ok {
		return 1
	}
	return 0
}

func podName(b *testing.B, item []byte) string {
	b.Helper()
	var p workload.SlimPod
	if err := jsonUnmarshal(item, &p); err != nil {
		b.Fatal(err)
	}
	return p.Name
}
