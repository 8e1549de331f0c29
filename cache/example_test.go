package cache_test

import (
	"fmt"
	"slices"
	"strings"

	"github.com/zerokube/zerokube/cache"
)

// Pod is a slim object: the cache only ever sees it through the key and index
// functions, so any type works.
type Pod struct {
	Namespace, Name, Node string
}

func podKey(p *Pod) string { return p.Namespace + "/" + p.Name }

func byNode(p *Pod) ([]string, error) {
	if p.Node == "" {
		return nil, nil // unscheduled pods are simply not in the index
	}
	return []string{p.Node}, nil
}

func names(pods []*Pod) string {
	out := make([]string, 0, len(pods))
	for _, p := range pods {
		out = append(out, p.Name)
	}
	slices.Sort(out) // stores have no order
	return strings.Join(out, ",")
}

// A store keeps objects by key and files them in named indexes; an update moves
// an object between index values.
func ExampleStore() {
	pods := cache.New(podKey, cache.Indexers[*Pod]{
		cache.NamespaceIndex: cache.NamespaceIndexFunc(func(p *Pod) string { return p.Namespace }),
		"node":               byNode,
	})
	pods.Add(&Pod{Namespace: "web", Name: "a", Node: "n1"})
	pods.Add(&Pod{Namespace: "web", Name: "b", Node: "n1"})
	pods.Add(&Pod{Namespace: "db", Name: "c"})

	web, _ := pods.ByIndex(cache.NamespaceIndex, "web")
	onN1, _ := pods.ByIndex("node", "n1")
	fmt.Println("web:", names(web), "on n1:", names(onN1))

	// Objects are shared with every reader: never mutate one, store a new one.
	pods.Update(&Pod{Namespace: "web", Name: "b", Node: "n2"})
	onN1, _ = pods.ByIndex("node", "n1")
	nodes := pods.ListIndexFuncValues("node")
	slices.Sort(nodes)
	fmt.Println("on n1:", names(onN1), "nodes:", nodes)

	pods.Delete(&Pod{Namespace: "web", Name: "a"}) // only the key matters
	nodes = pods.ListIndexFuncValues("node")
	fmt.Println("nodes after delete:", nodes, "len:", pods.Len())
	// Output:
	// web: a,b on n1: a,b
	// on n1: a nodes: [n1 n2]
	// nodes after delete: [n2] len: 2
}

// Replace swaps the whole content at once, as a relist does: readers see the
// old set or the new one, never a mix.
func ExampleStore_Replace() {
	pods := cache.New(podKey, cache.Indexers[*Pod]{"node": byNode})
	pods.Add(&Pod{Namespace: "web", Name: "old", Node: "n1"})
	pods.Replace([]*Pod{
		{Namespace: "web", Name: "x", Node: "n2"},
		{Namespace: "web", Name: "y", Node: "n2"},
	})
	keys := pods.ListKeys()
	slices.Sort(keys)
	fmt.Println(keys, pods.ListIndexFuncValues("node"))
	// Output: [web/x web/y] [n2]
}

// Indexes can be declared after data exists; existing objects are indexed at
// once. ByIndexAppend reuses a buffer, so a hot lookup loop does not allocate.
func ExampleStore_AddIndexers() {
	pods := cache.New(podKey, nil)
	pods.Add(&Pod{Namespace: "web", Name: "a", Node: "n1"})
	pods.Add(&Pod{Namespace: "web", Name: "b", Node: "n2"})
	if err := pods.AddIndexers(cache.Indexers[*Pod]{"node": byNode}); err != nil {
		panic(err)
	}
	var buf []*Pod
	for _, node := range []string{"n1", "n2", "n3"} {
		buf, _ = pods.ByIndexAppend(buf[:0], "node", node)
		fmt.Printf("%s: [%s]\n", node, names(buf))
	}
	// Output:
	// n1: [a]
	// n2: [b]
	// n3: []
}
