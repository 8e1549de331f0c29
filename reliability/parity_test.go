package reliability

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/apiclient"
	"github.com/zerokube/zerokube/fakeapiserver"
	"github.com/zerokube/zerokube/fakeapiserver/fakeapiservertest"
	"github.com/zerokube/zerokube/informer"
	"github.com/zerokube/zerokube/informer/observe"
	"github.com/zerokube/zerokube/kubeproto"
	"github.com/zerokube/zerokube/meta"
	"github.com/zerokube/zerokube/shard"
)

// The wire parity suite (issue 30): every fault the project knows, on each
// wire (JSON, protobuf) and each verb (paged LIST, WATCH, streaming list,
// the WATCH that resumes a snapshot), against the fake, asserting the same
// outcome on both wires: the same failure reasons, the same recovery (the
// relists that followed), the same final cache (the server's state), the
// same Undecodable() entries with the same paths.
//
// Body faults are made by a proxy between the informer and the fake that
// rewrites one reply, once, in each wire's own terms (parityFault.json and
// .protobuf): a fault is "the same" on both wires when it breaks the same
// layer, e.g. an event whose object has no envelope. Server faults (a 410
// between pages, an object the type refuses, a stalled watch) come from the
// fake itself and are wire-blind.
//
// TestFeatureParity crosses every fault with the features that meet it
// (a shard the server ignores, a metadata-only request, a websocket watch,
// inline processing) under the same assertions, and every run checks the
// request-rate invariant: no fault makes more requests than the backoff
// allows.
//
//	go test ./reliability -run 'TestWireParity|TestFeatureParity' -v

// parityVerb is the request a fault lands on.
type parityVerb uint8

const (
	verbList   parityVerb = iota // the first (paged) LIST
	verbWatch                    // a WATCH after the sync
	verbStream                   // a streaming list's initial events
	verbResume                   // the WATCH that resumes a snapshot
)

var verbNames = []string{"list", "watch", "stream", "resume"}

// parityFeature is what the informer does beside the fault: each is a
// place where a rule that holds alone may break another.
type parityFeature uint8

const (
	featurePlain     parityFeature = iota
	featureShard                   // Options.Shard, filtered by the informer: the fake ignores shard selectors
	featureMetadata                // a type of metadata only: PartialObjectMetadata lists and watches
	featureWebsocket               // watches over a websocket
	featureInline                  // Options.Process.InlineProcessing
)

var featureNames = []string{"plain", "shard", "metadata", "websocket", "inline"}

// paritySelector is the shard featureShard keeps: the one of two that
// holds "bad" (uid-bad), so that the object the type refuses is the
// shard's to fail on; the others fall where their uids hash.
var paritySelector = func() shard.Selector {
	for i := range 2 {
		sel, err := shard.Of(i, 2)
		if err != nil {
			panic(err)
		}
		if sel.ContainsHash(shard.Hash("uid-bad")) {
			return sel
		}
	}
	panic("no shard of two holds uid-bad")
}()

// apply sets the feature's options.
func (f parityFeature) apply(tr *informer.Transport, pr *informer.ProcessOptions, sh **informer.Shard) {
	switch f {
	case featureShard:
		s, err := informer.NewShard(paritySelector)
		if err != nil {
			panic(err)
		}
		*sh = s
	case featureWebsocket:
		tr.Websocket = wsDialer(true)
	case featureInline:
		pr.InlineProcessing = true
	}
}

// metaObject reads nothing beyond metadata: an informer of it asks for
// PartialObjectMetadata (featureMetadata).
type metaObject struct {
	meta.TypeMeta
	meta.ObjectMeta `json:"metadata"`
}

// parityFault is one fault. json and protobuf rewrite the reply the fault
// lands on: a LIST's whole body, or a watch's first object event (a frame
// without its length prefix for protobuf, a line for JSON). cut: after the
// rewritten bytes the connection is aborted. server arms a fault of the
// fake instead.
type parityFault struct {
	name         string
	verbs        []parityVerb
	json, pb     func(b []byte) []byte
	cut          bool
	server       func(p *parityCase)
	skip         bool                  // Options.Decode.SkipUndecodable
	undecodable  bool                  // an object the type refuses is on the server
	reason       observe.FailureReason // the first failure's reason on both wires (0: compare only)
	protobufOnly bool                  // JSON has no equivalent (see unknown kind)
	noFailure    bool                  // the fault must not be a failure at all
	onOpenWatch  bool                  // armed on the verb's watch once it is open and has bookmarked
	bound        time.Duration         // the reply's watchdog, when the fault needs its own
	twoBad       bool                  // two objects the type refuses, one after the other, as large as the rest
	notWith      []parityFeature       // features the fault does not meet
}

var allVerbs = []parityVerb{verbList, verbWatch, verbStream, verbResume}
var watchVerbs = []parityVerb{verbWatch, verbStream, verbResume}

var parityFaults = []parityFault{
	{name: "malformed body", verbs: allVerbs, reason: observe.FailureMalformed,
		json: func(b []byte) []byte {
			if isListBody(b) {
				return []byte(`{"kind":"ConfigMapList","apiVersion":"v1","items":[}`)
			}
			return []byte(`{"type":"ADDED","object":{"kind":}}` + "\n")
		},
		pb: func(b []byte) []byte {
			if bytes.HasPrefix(b, []byte(kubeproto.Magic)) {
				return []byte(kubeproto.Magic + "\x0f\x00") // a field of wire type 7
			}
			return []byte{0x0f, 0x00}
		}},
	{name: "cut mid-item", verbs: allVerbs, cut: true, reason: observe.FailureTruncated,
		json: func(b []byte) []byte { return b[:len(b)*2/3] },
		pb:   func(b []byte) []byte { return b[:len(b)*2/3] }},
	{name: "missing envelope", verbs: allVerbs, reason: observe.FailureMalformed,
		// JSON's envelope is the list object around the items and the
		// event's object member; protobuf's, the `k8s\x00` + Unknown
		// around a list or an event's object.
		json: func(b []byte) []byte {
			if isListBody(b) {
				return []byte(`[]`)
			}
			return []byte(`{"type":"ADDED"}` + "\n")
		},
		pb: func(b []byte) []byte {
			if bytes.HasPrefix(b, []byte(kubeproto.Magic)) {
				env, err := kubeproto.DecodeEnvelope(b)
				if err != nil {
					panic(err)
				}
				return env.Raw
			}
			we := mustEvent(b)
			env, err := kubeproto.DecodeEnvelope(we.Object)
			if err != nil {
				panic(err)
			}
			return kubeproto.AppendWatchEvent(nil, kubeproto.WatchEvent{Type: we.Type, Object: env.Raw})
		}},
	{name: "unknown kind in a known group/version", verbs: allVerbs, protobufOnly: true, reason: observe.FailureMalformed,
		// JSON has no schema table: any kind decodes by its field names.
		// Over protobuf the resource turns to JSON (informer/wire.go).
		pb: func(b []byte) []byte {
			if bytes.HasPrefix(b, []byte(kubeproto.Magic)) {
				return rekind(b, "WidgetList")
			}
			we := mustEvent(b)
			return kubeproto.AppendWatchEvent(nil, kubeproto.WatchEvent{Type: we.Type, Object: rekind(we.Object, "Widget")})
		}},
	{name: "an ERROR event that is not a Status", verbs: watchVerbs, reason: observe.FailureMalformed,
		json: func(b []byte) []byte { return eventType.ReplaceAll(b, []byte(`"type":"ERROR"`)) },
		pb: func(b []byte) []byte {
			we := mustEvent(b)
			return kubeproto.AppendWatchEvent(nil, kubeproto.WatchEvent{Type: "ERROR", Object: we.Object})
		}},
	{name: "zero-length frame", verbs: watchVerbs, reason: observe.FailureMalformed,
		json: func([]byte) []byte { return []byte("{}\n") },
		pb:   func([]byte) []byte { return nil }},
	{name: "410 mid-pagination", verbs: []parityVerb{verbList},
		server: func(p *parityCase) { p.srv.CompactBetweenPages(1) }},
	{name: "undecodable object", verbs: allVerbs, undecodable: true, reason: observe.FailureUndecodable},
	{name: "undecodable object, skipped", verbs: allVerbs, undecodable: true, skip: true},
	{name: "stalled watch", verbs: []parityVerb{verbWatch, verbResume}, reason: observe.FailureStalled, onOpenWatch: true,
		server: func(p *parityCase) { p.srv.StallWatches() }},
	// The LIST page's bound of the reply's one watchdog (StallTimeout): a
	// body that trickles and completes no item is "reply stalled" on both
	// wires.
	{name: "stalled reply", verbs: []parityVerb{verbList}, reason: observe.FailureStalled,
		server: func(p *parityCase) {
			p.srv.SlowBodies(fakeapiserver.SlowBody{Count: 1, Verb: "list", After: 40, Every: time.Second})
		}},
	// A page whose objects keep coming, each within the bound, while the
	// page takes longer than it: never cut, however long the page.
	{name: "a page that keeps delivering", verbs: []parityVerb{verbList}, noFailure: true, bound: time.Second,
		server: func(p *parityCase) { p.trickle(0.3) }},
	// The same, with objects the type refuses stepped over: what the
	// server sent counts as progress, decoded or not. "bad" and "bad-2"
	// are the list's first objects, and at this pace three objects take
	// longer than the bound: a reader that did not count the ones stepped
	// over would stall. (Not with the shard: its objects, written with
	// uids of their own, carry no managedFields, and the pace by the
	// average object would make the padded ones too slow.)
	{name: "a slow page with objects stepped over", verbs: []parityVerb{verbList}, undecodable: true, skip: true, twoBad: true,
		noFailure: true, bound: time.Second, notWith: []parityFeature{featureShard},
		server: func(p *parityCase) { p.trickle(0.45) }},
	// The streaming list's bound of the same watchdog (InitialEventsTimeout):
	// its events trickle a byte a second, none completes.
	{name: "stalled streaming list", verbs: []parityVerb{verbStream}, reason: observe.FailureStalled,
		server: func(p *parityCase) {
			p.srv.SlowBodies(fakeapiserver.SlowBody{Count: 1, Verb: "watch", QueryContains: "sendInitialEvents=true", After: 40, Every: time.Second})
		}},
}

// eventType is a JSON event's type member.
var eventType = regexp.MustCompile(`"type":"[A-Z]+"`)

// isListBody tells a JSON list body from a watch event line.
func isListBody(b []byte) bool { return !bytes.HasPrefix(b, []byte(`{"type"`)) }

func mustEvent(b []byte) kubeproto.WatchEvent {
	we, err := kubeproto.DecodeWatchEvent(b)
	if err != nil {
		panic(err)
	}
	return we
}

// rekind re-envelopes a protobuf object (or list) under another kind of
// the same apiVersion.
func rekind(b []byte, kind string) []byte {
	env, err := kubeproto.DecodeEnvelope(b)
	if err != nil {
		panic(err)
	}
	env.Kind = kind
	return kubeproto.AppendEnvelope(nil, env)
}

// parityOutcome is what one run of a fault on one wire and verb came to.
type parityOutcome struct {
	Reasons     []string // the failures' reasons, in order
	Relists     []string // the relists' causes after the sync (or after the start, for verbList)
	Undecodable []string // key@path of Informer.Undecodable()
}

// compared is what must be the same on both wires: the fault's own
// failure (the first) and the recovery it led to (the first relist after
// it), and what the cache skipped. Later failures and relists are left
// out: on a loaded machine a retry may itself time out, on either wire.
func (o parityOutcome) compared() parityOutcome {
	return parityOutcome{Reasons: o.Reasons[:min(len(o.Reasons), 1)], Relists: o.Relists[:min(len(o.Relists), 1)],
		Undecodable: o.Undecodable}
}

// parityCase is one run.
type parityCase struct {
	f      parityFault
	verb   parityVerb
	feat   parityFeature
	json   bool
	srv    *fakeapiserver.Server
	proxy  *bodyProxy
	client *apiclient.Client
	dir    string

	mu        sync.Mutex
	out       parityOutcome
	counted   bool         // relists are recorded from now on
	bookmarks atomic.Int32 // periodic bookmarks the informer received
}

func TestWireParity(t *testing.T) {
	for _, f := range parityFaults {
		for _, v := range f.verbs {
			t.Run(f.name+"/"+verbNames[v], func(t *testing.T) {
				t.Parallel()
				runOnBothWires(t, f, v, featurePlain)
			})
		}
	}
}

// TestFeatureParity is the feature dimension: every fault with each
// feature that meets it (a shard the server ignores, a metadata-only
// request, a websocket watch, inline processing; the streaming list and
// the snapshot resume are verbs of TestWireParity), on both wires, with
// the same assertions: the expected reason on both, the same outcome, the
// server's state in the cache, and no more requests than the backoff
// allows. Each fault meets each feature on one of its verbs, taken in
// turn, so that across the features every verb is met (a websocket only
// on verbs that watch).
func TestFeatureParity(t *testing.T) {
	for fi, f := range parityFaults {
		for feat := featureShard; feat <= featureInline; feat++ {
			verbs := f.verbs
			if feat == featureWebsocket {
				verbs = slices.DeleteFunc(slices.Clone(verbs), func(v parityVerb) bool { return v == verbList })
			}
			if len(verbs) == 0 || (feat == featureMetadata && f.undecodable) || slices.Contains(f.notWith, feat) {
				continue // a metadata-only type never reads the data the type refuses
			}
			v := verbs[(fi+int(feat))%len(verbs)]
			t.Run(f.name+"/"+featureNames[feat]+"/"+verbNames[v], func(t *testing.T) {
				t.Parallel()
				runOnBothWires(t, f, v, feat)
			})
		}
	}
}

// runOnBothWires runs the fault on JSON, then protobuf, and compares.
func runOnBothWires(t *testing.T, f parityFault, v parityVerb, feat parityFeature) {
	var outs []parityOutcome
	for _, json := range []bool{true, false} {
		if json && f.protobufOnly {
			continue
		}
		p := &parityCase{f: f, verb: v, feat: feat, json: json}
		outs = append(outs, p.run(t))
	}
	if len(outs) == 2 {
		require.Equal(t, outs[0].compared(), outs[1].compared(),
			"the same fault must come to the same outcome on JSON (first) and protobuf")
	}
}

// run runs the case and returns its outcome; it asserts what holds for one
// wire alone: the expected reason, and a final cache equal to the server's.
func (p *parityCase) run(t *testing.T) parityOutcome {
	wire := map[bool]string{true: "json", false: "protobuf"}[p.json]
	p.srv = fakeapiservertest.Start(t, fakeapiserver.Options{Logger: quiet(), BookmarkInterval: 20 * time.Millisecond})
	p.proxy = newBodyProxy(t, p.srv)
	cfg := fakeapiservertest.ClientConfig(p.srv)
	cfg.Host, cfg.TLS = p.proxy.URL, apiclient.TLSConfig{}
	c, err := apiclient.NewWithOptions(cfg, apiclient.Options{Logger: quiet()})
	require.NoError(t, err)
	p.client = c
	p.dir = t.TempDir()
	for i := range 5 {
		p.put(t, fmt.Sprintf("cm-%d", i), "0")
	}
	if p.f.undecodable && (p.verb == verbList || p.verb == verbStream) {
		p.putBad(t)
	}
	if p.verb == verbResume {
		p.saveSnapshot(t)
		p.put(t, "cm-0", "while-down")
		p.put(t, "cm-new", "while-down")
		if p.f.undecodable {
			p.putBad(t)
		}
	}
	if p.verb != verbWatch && !p.f.onOpenWatch {
		p.arm(t)
		p.counted = true
	}
	inf := p.informer(t)
	runInformer(t, inf.run)
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	if !p.f.undecodable || p.f.skip || p.verb == verbWatch {
		require.NoError(t, inf.waitForSync(ctx), "%s: sync", wire)
	}
	if p.verb == verbWatch || p.f.onOpenWatch {
		require.NoError(t, p.srv.AwaitWatchers(ctx, 1))
		if p.f.onOpenWatch {
			// A watch that has shown a bookmark cadence: its silence is
			// a stall, not a quiet resource.
			require.Eventually(t, func() bool { return p.bookmarks.Load() > 0 }, 20*time.Second, time.Millisecond, "%s: a bookmark", wire)
		}
		p.mu.Lock()
		p.counted = true
		p.mu.Unlock()
		p.arm(t)
		if p.f.undecodable {
			p.putBad(t)
		} else {
			p.put(t, "cm-1", "after-sync")
		}
	}
	if p.f.undecodable && !p.f.skip {
		// Nothing recovers an object the type refuses but its removal:
		// wait for the failure, then fix the data.
		require.Eventually(t, func() bool { return len(p.outcome().Reasons) > 0 }, 20*time.Second, 5*time.Millisecond, "%s: no failure", wire)
		require.NoError(t, p.srv.Delete(cmGVR, "default", "bad"))
	}
	p.put(t, "cm-2", "last") // an event after the fault: the watch works again
	want := p.serverState(t)
	require.Eventually(t, func() bool { return diff(want, inf.state()) == "" }, 20*time.Second, 5*time.Millisecond,
		"%s: the cache never matched the server: %s", wire, diff(want, inf.state()))
	require.True(t, p.proxy.fired.Load() || p.f.server != nil || p.f.undecodable, "%s: the fault never landed", wire)
	require.LessOrEqual(t, p.proxy.mostInASecond(), parityMaxPerSecond, "%s: more requests in a second than the backoff allows", wire)
	out := p.outcome()
	for _, u := range inf.undecodable() {
		out.Undecodable = append(out.Undecodable, u.Key+"@"+u.Path)
	}
	switch {
	case p.f.noFailure || (p.f.undecodable && p.f.skip && p.verb == verbList):
		require.Empty(t, out.Reasons, "%s", wire)
	case p.f.reason != 0:
		require.NotEmpty(t, out.Reasons, "%s: no failure", wire)
		require.Equal(t, p.f.reason.String(), out.Reasons[0], "%s", wire)
	}
	if p.f.protobufOnly {
		require.Positive(t, p.proxy.jsonAfterFault.Load(), "after an unknown kind the resource asks for JSON")
	}
	t.Logf("%s: %+v", wire, out)
	return out
}

func (p *parityCase) outcome() parityOutcome {
	p.mu.Lock()
	defer p.mu.Unlock()
	return parityOutcome{Reasons: slices.Clone(p.out.Reasons), Relists: slices.Clone(p.out.Relists)}
}

// cacheOf is the informer a case runs, as the case reads it: whatever its
// type (the metadata-only feature has one of its own).
type cacheOf struct {
	run         interface{ Run(context.Context) error }
	waitForSync func(context.Context) error
	state       func() state
	undecodable func() []informer.UndecodableObject
}

func (p *parityCase) informer(t *testing.T) cacheOf {
	if p.feat == featureMetadata {
		return parityInformer[metaObject](p)
	}
	return parityInformer[object](p)
}

// parityInformer builds the case's informer of type T, with its feature.
func parityInformer[T any, P meta.PtrObject[T]](p *parityCase) cacheOf {
	// The reply's watchdog: 2 s, long enough that a loaded machine never
	// trips it where no fault stalls; 1 s for the stall faults, which
	// wait it out on both wires (and with every feature).
	bound := 2 * time.Second
	switch {
	case p.f.bound != 0:
		bound = p.f.bound
	case p.f.reason == observe.FailureStalled:
		bound = time.Second
	}
	o := informer.Options[P]{
		Backoff: chaosBackoff,
		Sync: informer.SyncOptions{
			PageSize:             2,
			StreamingList:        p.verb == verbStream,
			InitialEventsTimeout: bound,
			StallTimeout:         bound,
		},
		Watch:  informer.WatchOptions{IdleTimeout: bound},
		Decode: informer.DecodeOptions[P]{SkipUndecodable: p.f.skip},
		Observe: informer.ObserveOptions{
			Logger: quiet(),
			WatchErrorHandler: func(_ context.Context, err error) {
				var f *informer.SyncError
				if errors.As(err, &f) {
					p.mu.Lock()
					p.out.Reasons = append(p.out.Reasons, f.Reason.String())
					p.mu.Unlock()
				}
			},
			Trace: func(ev observe.Event) {
				if ev.Stage == observe.StageBookmark && ev.Op != observe.OpInitialEventsEnd {
					p.bookmarks.Add(1)
				}
				if ev.Stage != observe.StageRelist {
					return
				}
				p.mu.Lock()
				if p.counted {
					p.out.Relists = append(p.out.Relists, ev.Cause.String())
				}
				p.mu.Unlock()
			},
		},
	}
	o.Transport.JSON = p.json
	p.feat.apply(&o.Transport, &o.Process, &o.Shard)
	if p.verb == verbResume {
		o.Snapshot = informer.SnapshotOptions{Dir: p.dir, Period: -1}
	}
	inf := informer.New[T](p.client, apiclient.Ref{GVR: cmGVR, Namespace: "default"}, o)
	return cacheOf{run: inf, waitForSync: inf.WaitForSync, state: func() state { return storeState(inf) }, undecodable: inf.Undecodable}
}

// saveSnapshot runs an informer to its sync and stops it, leaving a
// snapshot for the resume verb.
func (p *parityCase) saveSnapshot(t *testing.T) {
	if p.feat == featureMetadata {
		saveSnapshot[metaObject](t, p)
		return
	}
	saveSnapshot[object](t, p)
}

func saveSnapshot[T any, P meta.PtrObject[T]](t *testing.T, p *parityCase) {
	o := informer.Options[P]{
		Backoff:  chaosBackoff,
		Snapshot: informer.SnapshotOptions{Dir: p.dir, Period: -1},
		Observe:  informer.ObserveOptions{Logger: quiet()},
	}
	o.Transport.JSON = p.json
	p.feat.apply(&o.Transport, &o.Process, &o.Shard)
	inf := informer.New[T](p.client, apiclient.Ref{GVR: cmGVR, Namespace: "default"}, o)
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- inf.Run(ctx) }()
	wctx, wcancel := context.WithTimeout(ctx, 20*time.Second)
	defer wcancel()
	require.NoError(t, inf.WaitForSync(wctx))
	cancel()
	require.NoError(t, <-done)
}

// arm makes the fault land on the next request of the case's verb.
func (p *parityCase) arm(t *testing.T) {
	if p.f.server != nil {
		p.f.server(p)
		return
	}
	if p.f.undecodable {
		return
	}
	rewrite := p.f.pb
	if p.json {
		rewrite = p.f.json
	}
	p.proxy.arm(p.verb, rewrite, p.f.cut)
}

// trickle slows the next LIST's body so that an object takes share of the
// fault's bound on this wire, the list's envelope and its first object
// well within it, the whole page (the list at "0" is one page of every
// object) twice the bound: a few bytes every 20 ms, at the pace the
// list's bytes an object on this wire give.
func (p *parityCase) trickle(share float64) {
	accept := "application/json"
	if !p.json {
		accept = kubeproto.ContentType
	}
	req, err := http.NewRequest("GET", p.srv.URL()+"/api/v1/namespaces/default/configmaps", nil)
	if err != nil {
		panic(err)
	}
	req.Header.Set("Accept", accept)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		panic(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	items, _, err := p.srv.List(cmGVR, "default")
	if err != nil || len(items) == 0 {
		panic(fmt.Sprint("trickle: no objects to measure: ", err))
	}
	perObject := len(body) / len(items)
	const every = 20 * time.Millisecond
	perTick := max(1, int(math.Ceil(float64(perObject)*float64(every)/(share*float64(p.f.bound)))))
	p.srv.SlowBodies(fakeapiserver.SlowBody{Count: 1, Verb: "list", Every: every, Bytes: perTick})
}

func (p *parityCase) put(t *testing.T, name, v string) {
	obj := map[string]any{"metadata": map[string]any{"name": name, "namespace": "default"}, "data": map[string]string{"v": v}}
	if p.feat == featureShard {
		// A uid of its name's, so that which objects the shard keeps is
		// the same on both wires (the fake makes up uids otherwise).
		obj["metadata"].(map[string]any)["uid"] = "uid-" + name
		_, err := p.srv.PutUnchecked(cmGVR, obj)
		require.NoError(t, err)
		return
	}
	if _, err := p.srv.Get(cmGVR, "default", name); err == nil {
		_, err = p.srv.Update(cmGVR, obj)
		require.NoError(t, err)
		return
	}
	_, err := p.srv.Create(cmGVR, obj)
	require.NoError(t, err)
}

// putBad stores "bad", a ConfigMap whose binary data the type refuses.
func (p *parityCase) putBad(t *testing.T) {
	names := []string{"bad"}
	if p.f.twoBad {
		names = append(names, "bad-2")
	}
	for _, name := range names {
		md := map[string]any{"name": name, "namespace": "default", "uid": "uid-" + name}
		if p.f.twoBad {
			// About as large as the others, whose managedFields it lacks
			// (PutUnchecked writes none): the slow-page rows pace the
			// list by its average object.
			md["annotations"] = map[string]string{"pad": strings.Repeat("x", 150)}
		}
		_, err := p.srv.PutUnchecked(cmGVR, map[string]any{"metadata": md, "binaryData": map[string][]byte{"b": make([]byte, 2*maxBlob)}})
		require.NoError(t, err)
	}
}

// serverState is what the cache must end up holding: the server's objects
// but the one the type refuses, which is skipped.
func (p *parityCase) serverState(t *testing.T) state {
	items, _, err := p.srv.List(cmGVR, "default")
	require.NoError(t, err)
	out := state{}
	for _, r := range items {
		if !strings.HasPrefix(r.Name, "bad") && (p.feat != featureShard || paritySelector.Contains(r)) {
			out[meta.Key(r)] = r.ResourceVersion
		}
	}
	return out
}

// bodyProxy forwards to the fake and rewrites one armed reply.
type bodyProxy struct {
	*httptest.Server
	upstream *url.URL
	tr       *http.Transport

	mu      sync.Mutex
	verb    parityVerb
	rewrite func([]byte) []byte // nil: nothing armed
	cut     bool

	fired          atomic.Bool
	jsonAfterFault atomic.Int64 // requests that asked for JSON only after the fault fired

	reqMu sync.Mutex
	reqs  []time.Time // when each LIST (first page) and WATCH came: the request-rate invariant
}

// parityMaxPerSecond is the request-rate invariant: no fault makes more
// LISTs (first pages) and WATCHes in any second than the backoff allows.
// chaosBackoff starts at 5 ms and doubles to 100 ms (its waits at the cap
// spread over 50-100 ms), and at most one retry at once comes between two
// waits, each wait preceded by at most four requests: about 23 waits and
// 96 requests fit in the first second. A hot loop (a failed streaming list
// and a 410 in turn) made thousands.
const parityMaxPerSecond = 100

// note records a request for the rate invariant.
func (b *bodyProxy) note(r *http.Request) {
	q := r.URL.Query()
	if !strings.Contains(r.URL.Path, "/configmaps") || q.Get("continue") != "" {
		return
	}
	b.reqMu.Lock()
	b.reqs = append(b.reqs, time.Now())
	b.reqMu.Unlock()
}

// mostInASecond is the most requests noted in any one second.
func (b *bodyProxy) mostInASecond() int {
	b.reqMu.Lock()
	defer b.reqMu.Unlock()
	most := 0
	for i, from := range b.reqs {
		n := 0
		for _, at := range b.reqs[i:] {
			if at.Sub(from) >= time.Second {
				break
			}
			n++
		}
		most = max(most, n)
	}
	return most
}

func newBodyProxy(t *testing.T, srv *fakeapiserver.Server) *bodyProxy {
	u, err := url.Parse(srv.URL())
	require.NoError(t, err)
	// The proxy reads what it rewrites uncompressed: it asks for no gzip
	// (and the transport adds none).
	p := &bodyProxy{upstream: u, tr: &http.Transport{DisableCompression: true}}
	if ca := srv.CAData(); ca != nil {
		pool := x509.NewCertPool()
		require.True(t, pool.AppendCertsFromPEM(ca))
		p.tr.TLSClientConfig = &tls.Config{RootCAs: pool}
	}
	p.Server = httptest.NewServer(http.HandlerFunc(p.serve))
	t.Cleanup(func() { p.CloseClientConnections(); p.Close(); p.tr.CloseIdleConnections() })
	return p
}

func (b *bodyProxy) arm(v parityVerb, rewrite func([]byte) []byte, cut bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.verb, b.rewrite, b.cut = v, rewrite, cut
}

// take returns the armed rewrite when r is the verb it waits for, once: at
// the start of a reply, or at each event of a watch already open when the
// fault was armed.
func (b *bodyProxy) take(r *http.Request) (func([]byte) []byte, bool) {
	q := r.URL.Query()
	var v parityVerb
	switch {
	case q.Get("watch") == "":
		v = verbList
	case q.Get("sendInitialEvents") == "true":
		v = verbStream
	default:
		v = verbWatch
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.rewrite == nil || (v != b.verb && !(b.verb == verbResume && v == verbWatch)) {
		return nil, false
	}
	rw, cut := b.rewrite, b.cut
	b.rewrite = nil
	return rw, cut
}

func (b *bodyProxy) serve(w http.ResponseWriter, r *http.Request) {
	b.note(r)
	if b.fired.Load() && !strings.Contains(r.Header.Get("Accept"), kubeproto.ContentType) {
		b.jsonAfterFault.Add(1)
	}
	if websocket.IsWebSocketUpgrade(r) {
		b.serveWebsocket(w, r)
		return
	}
	out := r.Clone(r.Context())
	out.RequestURI = ""
	out.URL.Scheme, out.URL.Host = b.upstream.Scheme, b.upstream.Host
	out.Header.Del("Accept-Encoding")
	resp, err := b.tr.RoundTrip(out)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	var rewrite func([]byte) []byte
	cut := false
	if resp.StatusCode == http.StatusOK && r.Method == http.MethodGet {
		rewrite, cut = b.take(r)
	}
	for k, v := range resp.Header {
		if k != "Content-Length" || rewrite == nil {
			w.Header()[k] = v
		}
	}
	w.WriteHeader(resp.StatusCode)
	fl := w.(http.Flusher)
	// The headers go now, as kube-apiserver flushes a watch's headers
	// before its first event: a watch that stalls at once is still open.
	fl.Flush()
	if rewrite == nil && r.URL.Query().Get("watch") == "" {
		copyFlushing(w, fl, resp.Body)
		return
	}
	if r.URL.Query().Get("watch") == "" {
		b.fired.Store(true)
		body, _ := io.ReadAll(resp.Body)
		_, _ = w.Write(rewrite(body))
		if cut {
			fl.Flush()
			panic(http.ErrAbortHandler)
		}
		return
	}
	protobuf := strings.HasPrefix(resp.Header.Get("Content-Type"), kubeproto.ContentType)
	br := bufio.NewReader(resp.Body)
	for {
		ev, err := readEvent(br, protobuf)
		if err != nil {
			return
		}
		if rewrite == nil {
			rewrite, cut = b.take(r)
		}
		if rewrite != nil && !isBookmark(ev, protobuf) {
			b.fired.Store(true)
			if cut && protobuf {
				// The frame's length says the whole event; less follows.
				_, _ = w.Write(binary.BigEndian.AppendUint32(nil, uint32(len(ev))))
				_, _ = w.Write(rewrite(ev))
			} else {
				writeEvent(w, rewrite(ev), protobuf)
			}
			rewrite = nil
			fl.Flush()
			if cut {
				panic(http.ErrAbortHandler)
			}
			continue
		}
		writeEvent(w, ev, protobuf)
		fl.Flush()
	}
}

func copyFlushing(w io.Writer, fl http.Flusher, r io.Reader) {
	buf := make([]byte, 32<<10)
	for {
		n, err := r.Read(buf)
		if n > 0 {
			if _, werr := w.Write(buf[:n]); werr != nil {
				return
			}
			fl.Flush()
		}
		if err != nil {
			return
		}
	}
}

// readEvent reads one event: a line of JSON, or a protobuf frame's payload.
func readEvent(br *bufio.Reader, protobuf bool) ([]byte, error) {
	if !protobuf {
		return br.ReadBytes('\n')
	}
	var n [4]byte
	if _, err := io.ReadFull(br, n[:]); err != nil {
		return nil, err
	}
	b := make([]byte, binary.BigEndian.Uint32(n[:]))
	_, err := io.ReadFull(br, b)
	return b, err
}

// writeEvent writes one event; a protobuf payload gets its length prefix.
func writeEvent(w io.Writer, ev []byte, framed bool) {
	if framed {
		_, _ = w.Write(binary.BigEndian.AppendUint32(nil, uint32(len(ev))))
	}
	_, _ = w.Write(ev)
}

func isBookmark(ev []byte, protobuf bool) bool {
	if !protobuf {
		return bytes.Contains(ev, []byte(`"type":"BOOKMARK"`))
	}
	we, err := kubeproto.DecodeWatchEvent(ev)
	return err == nil && we.Type == "BOOKMARK"
}
