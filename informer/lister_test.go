package informer

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/cache"
	"github.com/zerokube/zerokube/meta"
)

func labelled(ns, name string, labels map[string]string) *pod {
	p := mkPod(name, "1")
	p.Namespace, p.Labels = ns, labels
	return p
}

func TestListerSelectsByLabelNamespaceNameAndCustomIndex(t *testing.T) {
	objs := []*pod{
		labelled("a", "web", map[string]string{"app": "web", "tier": "front"}),
		labelled("a", "db", map[string]string{"app": "db"}),
		labelled("b", "web", map[string]string{"app": "web"}),
		labelled("", "node", nil),
	}
	byApp := cache.Indexers[*pod]{"app": func(p *pod) ([]string, error) {
		if v, ok := p.Labels["app"]; ok {
			return []string{v}, nil
		}
		return nil, nil
	}}
	inf := newInformer[pod](newLiveLW(objs, "1"), Options[*pod]{Indexers: byApp, Observe: ObserveOptions{Logger: quiet()}})
	startInformer(t, inf)
	require.NoError(t, inf.WaitForSync(t.Context()))
	l := inf.Lister()

	names := func(ps []*pod) []string {
		var out []string
		for _, p := range ps {
			out = append(out, meta.Key(p))
		}
		return out
	}
	web, err := meta.ParseLabelSelector("app=web")
	require.NoError(t, err)
	require.ElementsMatch(t, []string{"a/web", "b/web"}, names(l.List(web)))
	require.Len(t, l.List(meta.LabelSelector{}), 4)
	require.ElementsMatch(t, []string{"a/web", "a/db"}, names(l.Namespace("a").List(meta.LabelSelector{})))
	require.ElementsMatch(t, []string{"b/web"}, names(l.Namespace("b").List(web)))
	p, ok := l.Get("a", "db")
	require.True(t, ok)
	require.Equal(t, "db", p.Name)
	_, ok = l.Namespace("b").Get("db")
	require.False(t, ok)
	_, ok = l.Get("", "node")
	require.True(t, ok, "cluster-scoped objects are keyed by name")
	got, err := l.ByIndex("app", "web")
	require.NoError(t, err)
	require.ElementsMatch(t, []string{"a/web", "b/web"}, names(got))
	_, err = l.ByIndex("nope", "x")
	require.ErrorIs(t, err, cache.ErrNoIndex)

	bare := Lister[*pod]{r: cache.New(func(p *pod) string { return meta.Key(p) }, nil)}
	require.Empty(t, bare.Namespace("a").List(meta.LabelSelector{}), "works without the namespace index")
}
