package informer

import (
	"context"
	"fmt"
	"log/slog"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/apiclient"
	"github.com/zerokube/zerokube/apiclient/websocket"
	"github.com/zerokube/zerokube/cache"
	"github.com/zerokube/zerokube/clock/clocktest"
	"github.com/zerokube/zerokube/fifo"
	"github.com/zerokube/zerokube/informer/observe"
	"github.com/zerokube/zerokube/meta"
	"github.com/zerokube/zerokube/shard"
	"github.com/zerokube/zerokube/snapshot"
)

// metadataOnlyPod reads nothing beyond metadata: an informer of it asks
// for PartialObjectMetadata unless Transport.FullObjects.
type metadataOnlyPod struct {
	meta.TypeMeta
	meta.ObjectMeta `json:"metadata"`
}

// built is an informer New built, and what its stages read.
type built struct {
	inf *Informer[pod, *pod]
	lw  resourceLW[pod, *pod] // New's ListerWatcher, before any wrapper
	cfg reflectorConfig[*pod] // what the reflector reads
}

func build(t *testing.T, opts Options[*pod]) built {
	t.Helper()
	c, err := apiclient.NewWithOptions(&apiclient.Config{Host: "http://127.0.0.1:1", QPS: -1}, apiclient.Options{})
	require.NoError(t, err)
	ref := apiclient.Ref{GVR: meta.GVR{Version: "v1", Resource: "pods"}, Namespace: "ns"}
	if opts.Observe.Logger == nil {
		opts.Observe.Logger = slog.New(slog.DiscardHandler)
	}
	inf := New[pod](c, ref, opts)
	return built{inf: inf, lw: newResourceLW[pod](c, ref, opts), cfg: inf.p.refl.cfg}
}

// setting is one exported setting of Options: how to give it a value
// other than its default, and what the stage that reads it holds, which
// must then differ from what it holds by default.
type setting struct {
	set  func(*Options[*pod])
	read func(built) any
}

// settings has a row for every exported field of Options and of its
// nested option structs (TestEverySettingHasARow keeps it complete).
var settings = map[string]setting{
	"Sync":                      {func(o *Options[*pod]) { o.Sync.PageSize = -1 }, func(b built) any { return b.cfg.pageSize }},
	"Watch":                     {func(o *Options[*pod]) { o.Watch.MinTimeout = -1 }, func(b built) any { return b.inf.p.refl.watchTimeout() }},
	"Decode":                    {func(o *Options[*pod]) { o.Decode.ExpectedKind = "Pod" }, func(b built) any { return b.cfg.expectedKind }},
	"Process":                   {func(o *Options[*pod]) { o.Process.DeltaFIFO = true }, func(b built) any { _, ok := b.inf.p.queue.(*fifo.DeltaFIFO[*pod]); return ok }},
	"Health":                    {func(o *Options[*pod]) { o.Health.StaleAfter = -1 }, func(b built) any { return b.inf.opts.Health.StaleAfter }},
	"Observe":                   {func(o *Options[*pod]) { o.Observe.Trace = func(observe.Event) {} }, func(b built) any { return b.cfg.obs.tracing() }},
	"Name":                      {func(o *Options[*pod]) { o.Name = "x" }, func(b built) any { return b.cfg.name + b.inf.p.disp.obs.name }},
	"Process.DeltaFIFO":         {func(o *Options[*pod]) { o.Process.DeltaFIFO = true }, func(b built) any { _, ok := b.inf.p.queue.(*fifo.DeltaFIFO[*pod]); return ok }},
	"Process.InlineProcessing":  {func(o *Options[*pod]) { o.Process.InlineProcessing = true }, func(b built) any { return b.inf.p.disp.loop }},
	"Sync.PageSize":             {func(o *Options[*pod]) { o.Sync.PageSize = -1 }, func(b built) any { return b.cfg.pageSize }},
	"Sync.ConsistentFirstList":  {func(o *Options[*pod]) { o.Sync.ConsistentFirstList = true }, func(b built) any { return b.inf.p.refl.initialState() }},
	"Sync.StreamingList":        {func(o *Options[*pod]) { o.Sync.StreamingList = true }, func(b built) any { return b.inf.p.refl.initialState() }},
	"Sync.InitialEventsTimeout": {func(o *Options[*pod]) { o.Sync.InitialEventsTimeout = -1 }, func(b built) any { return b.lw.initial }},
	"Watch.MinTimeout":          {func(o *Options[*pod]) { o.Watch.MinTimeout = -1 }, func(b built) any { return b.inf.p.refl.watchTimeout() }},
	"Watch.IdleTimeout":         {func(o *Options[*pod]) { o.Watch.IdleTimeout = -1 }, func(b built) any { return fmt.Sprint(b.lw.idle, b.cfg.idleTimeout) }},
	"Sync.StallTimeout":         {func(o *Options[*pod]) { o.Sync.StallTimeout = -1 }, func(b built) any { return fmt.Sprint(b.lw.stall, b.lw.first) }},
	"Health.StaleAfter":         {func(o *Options[*pod]) { o.Health.StaleAfter = -1 }, func(b built) any { return b.inf.opts.Health.StaleAfter }},
	"Health.UnhealthyAfterFailures": {func(o *Options[*pod]) { o.Health.UnhealthyAfterFailures = -1 },
		func(b built) any { return b.inf.opts.Health.UnhealthyAfterFailures }},
	"Process.ResyncPeriod":      {func(o *Options[*pod]) { o.Process.ResyncPeriod = time.Hour }, func(b built) any { return b.inf.p.disp.opts.Process.ResyncPeriod }},
	"Decode.Transform":          {func(o *Options[*pod]) { o.Decode.Transform = func(p *pod) (*pod, error) { return p, nil } }, func(b built) any { return b.cfg.transform != nil }},
	"Decode.KeepManagedFields":  {func(o *Options[*pod]) { o.Decode.KeepManagedFields = true }, func(b built) any { return fmt.Sprint(b.cfg.keepManagedFields, b.lw.decode.Unmarshal) }},
	"Decode.Sharer":             {func(o *Options[*pod]) { o.Decode.Sharer = meta.NewSharer(0) }, func(b built) any { return fmt.Sprint(b.lw.decode.Unmarshal) }},
	"Decode.ExpectedKind":       {func(o *Options[*pod]) { o.Decode.ExpectedKind = "Pod" }, func(b built) any { return b.cfg.expectedKind }},
	"Decode.ExpectedAPIVersion": {func(o *Options[*pod]) { o.Decode.ExpectedAPIVersion = "v2" }, func(b built) any { return b.cfg.expectedAPIVersion }},
	"Observe.WatchErrorHandler": {func(o *Options[*pod]) { o.Observe.WatchErrorHandler = func(context.Context, error) {} },
		func(b built) any { return b.cfg.watchErrorHandler != nil }},
	"Decode.SkipUndecodable": {func(o *Options[*pod]) { o.Decode.SkipUndecodable = true }, func(b built) any { return fmt.Sprint(b.cfg.skipUndecodable, b.lw.skip) }},
	"Sync.FailFast":          {func(o *Options[*pod]) { o.Sync.FailFast = true }, func(b built) any { return b.cfg.failFast }},
	"Backoff":                {func(o *Options[*pod]) { o.Backoff.Initial = time.Second }, func(b built) any { return b.inf.p.refl.back.opts }},
	"Backoff.Initial":        {func(o *Options[*pod]) { o.Backoff.Initial = time.Second }, func(b built) any { return b.inf.p.refl.back.delay(0) }},
	"Backoff.Max":            {func(o *Options[*pod]) { o.Backoff.Max = time.Second }, func(b built) any { return b.inf.p.refl.back.delay(10) }},
	"Backoff.Jitter":         {func(o *Options[*pod]) { o.Backoff.Jitter = -1 }, func(b built) any { return b.inf.p.refl.back.opts.Jitter }},
	"Backoff.ResetAfter":     {func(o *Options[*pod]) { o.Backoff.ResetAfter = time.Hour }, func(b built) any { return b.inf.p.rec.resetAfter }},
	"Indexers": {func(o *Options[*pod]) {
		o.Indexers = cache.Indexers[*pod]{"x": func(*pod) ([]string, error) { return nil, nil }}
	},
		func(b built) any { _, err := b.inf.p.store.IndexKeys("x", ""); return err == nil }},
	"Observe.Logger":  {func(o *Options[*pod]) { o.Observe.Logger = slog.New(slog.NewTextHandler(&strings.Builder{}, nil)) }, func(b built) any { return b.cfg.obs.log }},
	"Observe.Metrics": {func(o *Options[*pod]) { o.Observe.Metrics = rvRecorder{rvs: new([]string)} }, func(b built) any { return b.cfg.obs.counted }},
	"Observe.Trace":   {func(o *Options[*pod]) { o.Observe.Trace = func(observe.Event) {} }, func(b built) any { return b.cfg.obs.tracing() }},
	"Snapshot":        {func(o *Options[*pod]) { o.Snapshot.Dir = "/tmp/x" }, func(b built) any { return b.inf.p.snap != nil }},
	"Snapshot.Dir":    {func(o *Options[*pod]) { o.Snapshot.Dir = "/tmp/x" }, func(b built) any { return b.inf.p.snap != nil }},
	"Snapshot.Store": {func(o *Options[*pod]) { o.Snapshot.Store = snapshot.Dir{Path: "/tmp/y"} },
		func(b built) any {
			return b.inf.p.snap != nil && fmt.Sprint(b.inf.p.snap.opts.Store) == fmt.Sprint(snapshot.Dir{Path: "/tmp/y"})
		}},
	"Snapshot.Name": {func(o *Options[*pod]) { o.Snapshot.Dir, o.Snapshot.Name = "/tmp/x", "n" },
		func(b built) any { return b.inf.p.snap != nil && b.inf.p.snap.opts.Name == "n" }},
	"Snapshot.Period": {func(o *Options[*pod]) { o.Snapshot.Dir, o.Snapshot.Period = "/tmp/x", time.Hour },
		func(b built) any { return b.inf.p.snap != nil && b.inf.p.snap.opts.Period == time.Hour }},
	"Snapshot.Identity": {func(o *Options[*pod]) { o.Snapshot.Dir, o.Snapshot.Identity.Server = "/tmp/x", "srv" },
		func(b built) any { return b.inf.p.snap != nil && b.inf.p.snap.opts.Identity.Server == "srv" }},
	"Snapshot.Cluster": {func(o *Options[*pod]) {
		o.Snapshot.Dir, o.Snapshot.Cluster = "/tmp/x", func(context.Context) (string, error) { return "c", nil }
	}, func(b built) any { return b.inf.p.snap != nil && b.inf.p.snap.opts.Cluster != nil }},
	// Its behaviour over https: TestNoTLSSessionKeepsTheSessionOutOfTheSnapshot.
	"Snapshot.NoTLSSession": {func(o *Options[*pod]) { o.Snapshot.Dir, o.Snapshot.NoTLSSession = "/tmp/x", true },
		func(b built) any { return b.inf.p.snap != nil && b.inf.p.snap.opts.NoTLSSession }},
	"Snapshot.TransformVersion": {func(o *Options[*pod]) {
		o.Snapshot.Dir, o.Snapshot.TransformVersion = "/tmp/x", "v2"
		o.Decode.Transform = func(p *pod) (*pod, error) { return p, nil }
	}, func(b built) any { return b.inf.p.snap != nil && b.inf.p.snap.opts.Identity.Transform == "v2" }},
	"Audit":        {func(o *Options[*pod]) { o.Audit.Period = time.Hour }, func(b built) any { return b.inf.p.audit != nil }},
	"Audit.Period": {func(o *Options[*pod]) { o.Audit.Period = time.Hour }, func(b built) any { return b.inf.p.audit != nil && b.inf.p.audit.opts.Period == time.Hour }},
	"Audit.Repair": {func(o *Options[*pod]) { o.Audit.Period, o.Audit.Repair = time.Hour, true }, func(b built) any { return b.inf.p.audit != nil && b.inf.p.audit.repair != nil }},
	"Audit.PageSize": {func(o *Options[*pod]) { o.Audit.Period, o.Audit.PageSize = time.Hour, 7 },
		func(b built) any { return b.inf.p.audit != nil && b.inf.p.audit.opts.PageSize == 7 }},
	"LabelSelector": {func(o *Options[*pod]) { o.LabelSelector = "a=b" }, func(b built) any { return b.lw.label }},
	"FieldSelector": {func(o *Options[*pod]) { o.FieldSelector = "a=b" }, func(b built) any { return b.lw.field }},
	"WrapListerWatcher": {func(o *Options[*pod]) {
		o.WrapListerWatcher = func(lw ListerWatcher[*pod]) ListerWatcher[*pod] { return &scriptLW{} }
	}, func(b built) any { _, ok := b.inf.p.refl.lw.(*scriptLW); return ok }},
	"Shard": {func(o *Options[*pod]) {
		sel, _ := shard.Of(0, 2)
		o.Shard, _ = NewShard(sel)
	}, func(b built) any { return b.inf.p.shard != nil }},
	"Transport":               {func(o *Options[*pod]) { o.Transport.JSON = true }, func(b built) any { return b.lw.proto.decoder() == nil }},
	"Transport.Websocket":     {func(o *Options[*pod]) { o.Transport.Websocket = websocket.Dialer{} }, func(b built) any { return b.lw.tr.Websocket }},
	"Transport.MaxObjectSize": {func(o *Options[*pod]) { o.Transport.MaxObjectSize = 7 }, func(b built) any { return b.lw.decode.MaxEventSize }},
	"Transport.JSON":          {func(o *Options[*pod]) { o.Transport.JSON = true }, func(b built) any { return b.lw.proto.decoder() == nil }},
	"Transport.FullObjects":   {func(o *Options[*pod]) { o.Transport.FullObjects = true }, func(b built) any { return asksMetadata[metadataOnlyPod](b.inf.opts) }},
	"Clock":                   {func(o *Options[*pod]) { o.Clock = clocktest.New() }, func(b built) any { return fmt.Sprint(b.cfg.clock == b.lw.decode.Clock, fmt.Sprintf("%T", b.cfg.clock)) }},
	"Rand":                    {func(o *Options[*pod]) { o.Rand = func() float64 { return 0.5 } }, func(b built) any { return b.inf.p.refl.watchTimeout() }},
}

// Every exported setting reaches the stage that reads it: set to a value
// other than its default (a negative duration: off), what that stage holds
// differs from what it holds by default. It would have caught
// Transport.Stream.MaxEventSize never reaching a LIST's items and a
// negative StallTimeout (documented as off) becoming 30 s.
func TestEverySettingReachesItsReader(t *testing.T) {
	def := build(t, Options[*pod]{Rand: func() float64 { return 0 }})
	for name, s := range settings {
		t.Run(name, func(t *testing.T) {
			o := Options[*pod]{Rand: func() float64 { return 0 }}
			s.set(&o)
			got, want := s.read(build(t, o)), s.read(def)
			require.NotEqual(t, fmt.Sprint(want), fmt.Sprint(got), "%s set, its reader holds what it holds by default", name)
		})
	}
}

// The one rule: a negative duration is off, and off is 0 at its reader,
// whatever the field; never the default.
func TestANegativeDurationIsOffEverywhere(t *testing.T) {
	b := build(t, Options[*pod]{
		Rand: func() float64 { return 0 },
		Sync: SyncOptions{
			StallTimeout:         -1,
			InitialEventsTimeout: -1,
			PageSize:             -1,
		},
		Watch: WatchOptions{
			IdleTimeout: -1,
			MinTimeout:  -1,
		},
	})
	require.Zero(t, b.lw.stall)
	require.Zero(t, b.lw.first)
	require.Zero(t, b.lw.idle)
	require.Zero(t, b.cfg.idleTimeout)
	require.Zero(t, b.lw.initial)
	require.Zero(t, b.cfg.minWatchTimeout)
	require.Zero(t, b.cfg.pageSize)
	require.Zero(t, b.inf.p.refl.watchTimeout(), "the server chooses the watch's length")
	o := Options[*pod]{Backoff: BackoffOptions{Jitter: -1}, Sync: SyncOptions{StallTimeout: -1, PageSize: -1}}.withDefaults()
	twice := o.withDefaults()
	require.Equal(t, []any{o.Sync.StallTimeout, o.Sync.PageSize, o.Backoff}, []any{twice.Sync.StallTimeout, twice.Sync.PageSize, twice.Backoff},
		"defaults applied twice are applied once: off stays off")
	require.PanicsWithValue(t, "informer: BackoffOptions.Max is negative (-1s): a backoff cannot be off; 0 means the default",
		func() { build(t, Options[*pod]{Backoff: BackoffOptions{Max: -time.Second}}) })
}

// TestEverySettingHasARow keeps the table complete: a setting added to
// Options without a row fails here.
func TestEverySettingHasARow(t *testing.T) {
	var names []string
	var walk func(prefix string, typ reflect.Type)
	walk = func(prefix string, typ reflect.Type) {
		for f := range typ.Fields() {
			if !f.IsExported() {
				continue
			}
			names = append(names, prefix+f.Name)
			if f.Type.Kind() == reflect.Struct && f.Type.PkgPath() == reflect.TypeFor[Options[*pod]]().PkgPath() {
				walk(prefix+f.Name+".", f.Type)
			}
		}
	}
	walk("", reflect.TypeFor[Options[*pod]]())
	for _, n := range names {
		_, ok := settings[n]
		require.True(t, ok, "Options.%s has no row in settings: show it reaching its reader", n)
	}
	require.Len(t, settings, len(names), "a row for a setting that is gone")
}
