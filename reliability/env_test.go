package reliability

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/apiclient"
	"github.com/zerokube/zerokube/informer"
	"github.com/zerokube/zerokube/meta"
)

// object is the slim type every suite caches: a ConfigMap's metadata and
// data, and its binary data through a validating type, which an object the
// option matrix plants refuses (over protobuf as over JSON).
type object struct {
	meta.TypeMeta
	meta.ObjectMeta `json:"metadata"`
	Data            map[string]string `json:"data,omitempty"`
	BinaryData      map[string]blob   `json:"binaryData,omitempty"`
}

// maxBlob is the largest binary value blob takes.
const maxBlob = 16

// blob is a validating type, as users write them: binary data of at most
// maxBlob bytes. A larger value is one any server stores and the user's
// type refuses.
type blob []byte

func (b *blob) UnmarshalJSON(j []byte) error {
	var v []byte
	if err := json.Unmarshal(j, &v); err != nil {
		return err
	}
	if len(v) > maxBlob {
		return fmt.Errorf("%d bytes of binary data, over %d: %w", len(v), maxBlob, errBlobTooLarge)
	}
	*b = v
	return nil
}

var errBlobTooLarge = errors.New("blob too large")

var (
	cmGVR  = meta.GVR{Version: "v1", Resource: "configmaps"}
	nsGVR  = meta.GVR{Version: "v1", Resource: "namespaces"}
	allCMs = apiclient.Ref{GVR: cmGVR} // every namespace
)

func quiet() *slog.Logger { return slog.New(slog.DiscardHandler) }

// rvOf parses a resourceVersion of the fake server (a decimal counter).
func rvOf(o *object) uint64 {
	n, _ := strconv.ParseUint(o.ResourceVersion, 10, 64)
	return n
}

// state is key → resourceVersion: what "equal" means for a cache, a
// handler's view and the server.
type state map[string]string

// storeState reads an informer's cache.
func storeState[T any, P meta.PtrObject[T]](inf *informer.Informer[T, P]) state {
	out := state{}
	for _, o := range inf.Store().List() {
		out[meta.Key(o)] = o.GetResourceVersion()
	}
	return out
}

// diff describes how got differs from want, briefly.
func diff(want, got state) string {
	var missing, extra, stale []string
	for k, rv := range want {
		switch g, ok := got[k]; {
		case !ok:
			missing = append(missing, k+"@"+rv)
		case g != rv:
			stale = append(stale, fmt.Sprintf("%s@%s(want %s)", k, g, rv))
		}
	}
	for k, rv := range got {
		if _, ok := want[k]; !ok {
			extra = append(extra, k+"@"+rv)
		}
	}
	if len(missing)+len(extra)+len(stale) == 0 {
		return ""
	}
	short := func(s []string) string {
		slices.Sort(s)
		if len(s) > 5 {
			return strings.Join(s[:5], " ") + fmt.Sprintf(" …(%d)", len(s))
		}
		return strings.Join(s, " ")
	}
	return fmt.Sprintf("missing [%s] extra [%s] stale [%s]", short(missing), short(extra), short(stale))
}

// view is a handler that builds its own picture of the world from the
// notifications it gets, and checks that they form a valid history per
// key: an add only of a key it does not hold, an update or delete only of
// one it holds, the old object of an update equal to the last one it was
// given, and no resourceVersion going backwards.
type view struct {
	name  string
	delay time.Duration // a slow handler's time per call
	// changed, when set, fires after every call, for waiters.
	changed *signal

	mu      sync.Mutex
	state   state
	last    map[string]string // key → signature of the last object given
	rvs     map[string]uint64
	deletes []deleteRec // every OnDelete, for the oracle of chaos_deletes_test.go
	// later: an add without isInInitialList arrived, so the initial
	// population is over and no add may carry the flag again. (Updates and
	// deletes say nothing: with DeltaFIFO the initial population hands
	// over each key's deltas together, an update of one key before the
	// initial add of the next, as client-go's does.)
	later bool

	calls     atomic.Int64
	anomalies atomic.Int64 // a notification that breaks the per-key history
	rvBack    atomic.Int64 // an object's resourceVersion went backwards
	firstBad  atomic.Pointer[string]
}

func newView(name string, delay time.Duration) *view {
	return &view{name: name, delay: delay, state: state{}, last: map[string]string{}, rvs: map[string]uint64{}}
}

// signature is what "equal" means for two objects the oracle compares: the
// resourceVersion and the data (whose value is the write's step number).
func signature(o *object) string {
	keys := slices.Sorted(maps.Keys(o.Data))
	var b strings.Builder
	b.WriteString(o.ResourceVersion)
	for _, k := range keys {
		b.WriteString(" " + k + "=" + o.Data[k])
	}
	return b.String()
}

func (v *view) note(counter *atomic.Int64, format string, args ...any) {
	counter.Add(1)
	msg := fmt.Sprintf(format, args...)
	v.firstBad.CompareAndSwap(nil, &msg)
}

func (v *view) set(o *object) {
	k := meta.Key(o)
	if rv := rvOf(o); rv < v.rvs[k] {
		v.note(&v.rvBack, "%s: %s went back from rv %d to %d", v.name, k, v.rvs[k], rv)
	}
	v.state[k] = o.ResourceVersion
	v.last[k] = signature(o)
	v.rvs[k] = rvOf(o)
}

func (v *view) OnAdd(o *object, initial bool) {
	v.pace()
	defer v.fire()
	v.mu.Lock()
	defer v.mu.Unlock()
	if _, ok := v.state[meta.Key(o)]; ok {
		v.note(&v.anomalies, "%s: add of held %s (initial %t)", v.name, meta.Key(o), initial)
	}
	if initial && v.later {
		v.note(&v.anomalies, "%s: add of %s@%s with isInInitialList after the initial list", v.name, meta.Key(o), o.ResourceVersion)
	}
	v.later = v.later || !initial
	v.set(o)
}

func (v *view) OnUpdate(old, o *object) {
	v.pace()
	defer v.fire()
	v.mu.Lock()
	defer v.mu.Unlock()
	k := meta.Key(o)
	switch last, ok := v.last[k]; {
	case !ok:
		v.note(&v.anomalies, "%s: update of %s, which it does not hold", v.name, k)
	case meta.Key(old) != k:
		v.note(&v.anomalies, "%s: update from %s to %s", v.name, meta.Key(old), k)
	case signature(old) != last:
		v.note(&v.anomalies, "%s: update of %s from {%s}, but the last it was given is {%s}", v.name, k, signature(old), last)
	}
	v.set(o)
}

func (v *view) OnDelete(o *object, finalStateUnknown bool) {
	v.pace()
	defer v.fire()
	v.mu.Lock()
	defer v.mu.Unlock()
	k := meta.Key(o)
	if _, ok := v.state[k]; !ok {
		v.note(&v.anomalies, "%s: delete of %s, which it does not hold (final state unknown %t)", v.name, k, finalStateUnknown)
	}
	v.deletes = append(v.deletes, deleteRec{key: k, uid: o.UID, rv: o.ResourceVersion, unknown: finalStateUnknown})
	delete(v.state, k)
	delete(v.last, k)
	// An object may come back under the same name: its new life starts at
	// a later resourceVersion, which set checks against the delete's.
	v.rvs[k] = max(v.rvs[k], rvOf(o))
}

func (v *view) fire() {
	if v.changed != nil {
		v.changed.fire()
	}
}

// signal is a broadcast: every fire wakes every waiter of the channel that
// wait returned before it.
type signal struct {
	mu sync.Mutex
	ch chan struct{}
}

func newSignal() *signal { return &signal{ch: make(chan struct{})} }

func (s *signal) fire() {
	s.mu.Lock()
	close(s.ch)
	s.ch = make(chan struct{})
	s.mu.Unlock()
}

func (s *signal) wait() <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.ch
}

// awaitOn waits for cond, re-checked whenever sig fires (and every
// recheck, when positive: for conditions that time alone makes true, such
// as staleness), for at most d; false when it never held.
func awaitOn(sig *signal, cond func() bool, d, recheck time.Duration) bool {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	var tick <-chan time.Time
	if recheck > 0 {
		t := time.NewTicker(recheck)
		defer t.Stop()
		tick = t.C
	}
	for {
		ch := sig.wait()
		if cond() {
			return true
		}
		select {
		case <-ch:
		case <-tick:
		case <-ctx.Done():
			return cond()
		}
	}
}

func (v *view) pace() {
	v.calls.Add(1)
	if v.delay > 0 {
		time.Sleep(v.delay) // a slow handler, by design: its work takes time
	}
}

func (v *view) snapshot() state {
	v.mu.Lock()
	defer v.mu.Unlock()
	return maps.Clone(v.state)
}

func (v *view) deleteRecs() []deleteRec {
	v.mu.Lock()
	defer v.mu.Unlock()
	return slices.Clone(v.deletes)
}

func (v *view) bad() string {
	if p := v.firstBad.Load(); p != nil {
		return *p
	}
	return ""
}

// runInformer runs inf until the test ends, then checks that Run returns
// promptly and without an error.
func runInformer(t *testing.T, inf interface{ Run(context.Context) error }) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- inf.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			require.NoError(t, err, "Run")
		case <-time.After(10 * time.Second):
			t.Errorf("Run did not return within 10 s of cancel")
		}
	})
}

// raiseTo raises a to the resourceVersion rv, if rv is a number above it.
func raiseTo(a *atomic.Int64, rv string) {
	n, err := strconv.ParseInt(rv, 10, 64)
	if err != nil {
		return
	}
	for cur := a.Load(); n > cur && !a.CompareAndSwap(cur, n); cur = a.Load() {
	}
}
