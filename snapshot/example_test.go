package snapshot_test

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/zerokube/zerokube/snapshot"
)

// Node is a slim object: a snapshot holds each object as its JSON.
type Node struct {
	Name string `json:"name"`
	Zone string `json:"zone"`
}

// Save a cache's objects with the resourceVersion they are in step with,
// then load them back: an informer does this at a clean stop and at start.
// A snapshot of something else (here, another label selector) is
// rejected with a reason, and the caller lists as if there were none.
func ExampleDir() {
	path, _ := os.MkdirTemp("", "snapshot-example")
	defer os.RemoveAll(path)
	ctx := context.Background()
	store := snapshot.Dir{Path: path}
	id := snapshot.Identity{Server: "https://10.0.0.1:6443", Version: "v1", Resource: "nodes", Type: "example.Node"}

	nodes := []*Node{{Name: "n1", Zone: "a"}, {Name: "n2", Zone: "b"}}
	if err := snapshot.SaveTo(ctx, store, "nodes", snapshot.Header{Identity: id, ResourceVersion: "812"}, nodes); err != nil {
		fmt.Println(err)
		return
	}

	h, loaded, err := snapshot.LoadFrom[Node](ctx, store, "nodes", id, snapshot.ReadOptions{})
	fmt.Println(h.ResourceVersion, len(loaded), loaded[1].Name, err)

	other := id
	other.LabelSelector = "zone=a"
	_, _, err = snapshot.LoadFrom[Node](ctx, store, "nodes", other, snapshot.ReadOptions{})
	reason, _ := snapshot.ReasonOf(err)
	fmt.Println(reason, "-", err)

	_, _, err = snapshot.LoadFrom[Node](ctx, store, "pods", id, snapshot.ReadOptions{})
	fmt.Println(errors.Is(err, snapshot.ErrNotFound))
	// Output:
	// 812 2 n2 <nil>
	// identity - snapshot: identity mismatch: labelSelector is "", want "zone=a"
	// true
}
