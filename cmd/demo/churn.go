package main

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/zerokube/zerokube/apiclient"
	"github.com/zerokube/zerokube/fakeapiserver"
	"github.com/zerokube/zerokube/meta"
)

// The churn keeps between minObjects and maxObjects of its own objects
// (named example-xxxxx, as in the article's output) and changes one of
// them every tick, so a reader sees Add, Update and Delete lines come by
// without typing anything.
const (
	seedObjects = 3
	minObjects  = 2
	maxObjects  = 6
	churnPrefix = "example-"
)

// churner writes to the embedded server through its Go API, which commits
// exactly as HTTP writes do (same resourceVersions, same watch events).
type churner struct {
	srv *fakeapiserver.Server
	res resourceSpec
	ns  string // where the objects go; "" for cluster-scoped resources
	// paused stops the ticks from writing (the live page's pause and step
	// buttons); writes asked for by the page still happen.
	paused atomic.Bool
	// every is the time between two writes, which the page may change
	// while run waits; retime wakes run to take a new value at once.
	every  atomic.Int64
	retime chan struct{}
	// ticks counts the writes of run's own ticks, as opposed to the seed's
	// and the page's buttons', for the shutdown line.
	ticks atomic.Int64
	// cached reports whether the informer's cache holds the named object
	// (set once the informer exists): the tombstone lesson deletes only
	// such an object, or no tombstone would follow.
	cached atomic.Pointer[func(name string) bool]

	mu      sync.Mutex // guards the fields below: the ticker and the page both write
	rng     *rand.Rand
	writes  int
	labelNo int
}

func newChurner(srv *fakeapiserver.Server, res resourceSpec, namespace string, seed uint64) *churner {
	if res.cluster {
		namespace = ""
	} else if namespace == "" {
		namespace = "default" // --namespace "" watches everything; write somewhere
	}
	return &churner{srv: srv, res: res, ns: namespace, rng: rand.New(rand.NewPCG(seed, seed^0x5eed)),
		retime: make(chan struct{}, 1)}
}

// seed creates the first few objects, before the informer starts, so the
// initial list has something in it.
func (c *churner) seed() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	for range seedObjects {
		if _, err := c.create(); err != nil {
			return err
		}
	}
	return nil
}

// run makes one write every interval until ctx ends, unless paused.
// Write errors (a kubectl user deleted the object first, say) are reported
// and skipped.
func (c *churner) run(ctx context.Context, report func(error)) {
	for {
		t := time.NewTimer(c.interval())
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-c.retime:
			t.Stop()
			continue
		case <-t.C:
		}
		if c.paused.Load() {
			continue
		}
		if _, err := c.change(); err != nil {
			report(err)
			continue
		}
		c.ticks.Add(1)
	}
}

// The bounds of the page's slower and faster buttons.
const (
	minChurnInterval = 250 * time.Millisecond
	maxChurnInterval = 30 * time.Second
)

// interval is the time between two writes now.
func (c *churner) interval() time.Duration { return time.Duration(c.every.Load()) }

// setInterval changes it, within the page's bounds, and wakes run to use
// it. (--churn-interval sets the first value as given, with every.Store.)
func (c *churner) setInterval(d time.Duration) time.Duration {
	d = min(max(d, minChurnInterval), maxChurnInterval)
	c.every.Store(int64(d))
	select {
	case c.retime <- struct{}{}:
	default:
	}
	return d
}

// step makes one change (see change).
func (c *churner) step() error {
	_, err := c.change()
	return err
}

// change picks one write and says what it did: create when there are few
// objects, delete when there are many, otherwise any of create, relabel
// and delete.
func (c *churner) change() (text, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	names, err := c.names()
	if err != nil {
		return text{}, err
	}
	op := c.rng.IntN(3)
	switch {
	case len(names) < minObjects:
		op = 0
	case len(names) >= maxObjects:
		op = 2
	}
	switch op {
	case 0:
		name, err := c.create()
		return say(msgCreated, name), err
	case 1:
		name := names[c.rng.IntN(len(names))]
		return say(msgRelabelled, name), c.relabel(name)
	default:
		name := names[c.rng.IntN(len(names))]
		return say(msgDeleted, name), c.delete(name)
	}
}

// What a write did, for the page's buttons and the step.
var (
	msgCreated    = msg{en: "created %s", zh: "创建了 %s"}
	msgRelabelled = msg{en: "relabelled %s", zh: "给 %s 换了标签"}
	msgDeleted    = msg{en: "deleted %s", zh: "删除了 %s"}
)

// names lists the churn's own objects as the server has them now, so
// objects created or deleted with kubectl are taken into account.
func (c *churner) names() ([]string, error) {
	items, _, err := c.srv.List(c.res.gvr, c.ns)
	if err != nil {
		return nil, fmt.Errorf("churn: list: %w", err)
	}
	var names []string
	for _, it := range items {
		if strings.HasPrefix(it.Name, churnPrefix) && it.DeletionTimestamp == nil {
			names = append(names, it.Name)
		}
	}
	return names, nil
}

// create makes one object and returns its name. c.mu must be held.
func (c *churner) create() (string, error) {
	created, err := c.srv.Create(c.res.gvr, c.object(map[string]any{"generateName": churnPrefix, "labels": map[string]string{"app": "example"}}))
	if err != nil {
		return "", fmt.Errorf("churn: create in %s: %w", apiclient.Ref{GVR: c.res.gvr, Namespace: c.ns}, err)
	}
	c.writes++
	return created.Name, nil
}

// object is a new object of the churn's resource with metadata md, in the
// churn's namespace; a pod gets the one container it needs.
func (c *churner) object(md map[string]any) map[string]any {
	if c.ns != "" {
		md["namespace"] = c.ns
	}
	obj := map[string]any{"metadata": md}
	if c.res.isPods() {
		obj["spec"] = map[string]any{"containers": []any{map[string]any{"name": "app", "image": "nginx"}}}
	}
	return obj
}

// relabel sets a new "tick" label on the named object. c.mu must be held.
func (c *churner) relabel(name string) error {
	c.labelNo++
	patch := `{"metadata":{"labels":{"tick":"` + strconv.Itoa(c.labelNo) + `"}}}`
	if _, err := c.srv.Patch(c.res.gvr, c.ns, name, meta.MergePatch, []byte(patch)); err != nil {
		return fmt.Errorf("churn: label %s: %w", name, err)
	}
	c.writes++
	return nil
}

// delete deletes the named object. c.mu must be held.
func (c *churner) delete(name string) error {
	if err := c.srv.Delete(c.res.gvr, c.ns, name); err != nil && !meta.IsNotFound(err) {
		return fmt.Errorf("churn: delete %s: %w", name, err)
	}
	c.writes++
	return nil
}

// unseenName is the object of the "Drop one event" lesson: not the
// churn's (churnPrefix), so no later write of the churn touches it and
// heals the cache before the audit finds the event the watch lost.
const unseenName = "unseen-change"

// relabelUnseen relabels the lesson's own object, after creating it if it
// is missing, and calls lose between the two: the create's event is
// offered to the watches while it commits, so lose (arming a drop) affects
// the relabel only. It returns the object's name. Under c.mu: no write of
// the churn's comes between lose and the relabel.
func (c *churner) relabelUnseen(lose func()) (string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, err := c.srv.Create(c.res.gvr, c.object(map[string]any{"name": unseenName, "labels": map[string]string{"app": "lesson"}})); err == nil {
		c.writes++
	} else if !meta.IsAlreadyExists(err) {
		return "", fmt.Errorf("churn: create %s: %w", unseenName, err)
	}
	lose()
	return unseenName, c.relabel(unseenName)
}

// writeCount returns how many writes the churn made.
func (c *churner) writeCount() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.writes
}

// pick runs fn on one of the churn's objects, chosen at random, under c.mu.
func (c *churner) pick(fn func(name string) error) (string, error) {
	return c.pickWhere(func(string) bool { return true }, errNoObject, fn)
}

// pickCached is pick among the objects the informer's cache holds.
func (c *churner) pickCached(fn func(name string) error) (string, error) {
	in := c.cached.Load()
	if in == nil {
		return c.pick(fn)
	}
	return c.pickWhere(*in, errNoCachedObject, fn)
}

// pickWhere is pick among the objects keep keeps; none is errNone.
func (c *churner) pickWhere(keep func(string) bool, errNone error, fn func(name string) error) (string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	names, err := c.names()
	if err != nil {
		return "", err
	}
	names = slices.DeleteFunc(names, func(n string) bool { return !keep(n) })
	if len(names) == 0 {
		return "", errNone
	}
	name := names[c.rng.IntN(len(names))]
	return name, fn(name)
}

// errNoCachedObject is errNoObject for the tombstone lesson.
var errNoCachedObject = errors.New("no object of the demo's churn in the informer's cache yet to delete unseen: wait for the next Add, or create one first")
