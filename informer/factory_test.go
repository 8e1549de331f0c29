package informer_test

import (
	"bytes"
	"log/slog"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/informer"
	"github.com/zerokube/zerokube/meta"
	"github.com/zerokube/zerokube/shard"
)

// sharedTwice asks a new factory for the informer of T twice, with first's
// options and then with second's, and returns what the factory logged
// about the second request.
func sharedTwice[T any, P meta.PtrObject[T]](t *testing.T, e *env, first, second informer.Options[P]) string {
	t.Helper()
	var logs bytes.Buffer
	f := informer.NewFactory(e.client, slog.New(slog.NewTextHandler(&logs, nil)))
	a := informer.Shared[T](f, cmRef, first)
	require.Empty(t, logs.String())
	require.Same(t, a, informer.Shared[T](f, cmRef, second), "the factory shares the first informer")
	return logs.String()
}

// Issue #38: a second caller asking for whole objects silently shared an
// informer of PartialObjectMetadata. Every option that changes what the
// shared informer caches makes the factory warn, naming it.
func TestFactoryWarnsOnEveryOptionThatChangesWhatIsCached(t *testing.T) {
	e := newEnv(t)
	drop := func(cm *configMap) (*configMap, error) { cm.Data = nil; return cm, nil }
	wrap := func(lw informer.ListerWatcher[*configMap]) informer.ListerWatcher[*configMap] { return lw }
	cases := map[string]func(*informer.Options[*configMap]){
		"transform=":         func(o *informer.Options[*configMap]) { o.Decode.Transform = drop },
		"keepManagedFields=": func(o *informer.Options[*configMap]) { o.Decode.KeepManagedFields = true },
		"skipUndecodable=":   func(o *informer.Options[*configMap]) { o.Decode.SkipUndecodable = true },
		"kind=":              func(o *informer.Options[*configMap]) { o.Decode.ExpectedKind = "ConfigMap" },
		"apiVersion=":        func(o *informer.Options[*configMap]) { o.Decode.ExpectedAPIVersion = "v2" },
		"wrapListerWatcher=": func(o *informer.Options[*configMap]) { o.WrapListerWatcher = wrap },
		"json=":              func(o *informer.Options[*configMap]) { o.Transport.JSON = true },
		"sharer=":            func(o *informer.Options[*configMap]) { o.Decode.Sharer = meta.NewSharer(0) },
		"snapshot=":          func(o *informer.Options[*configMap]) { o.Snapshot.Dir = t.TempDir() },
	}
	for key, tweak := range cases {
		t.Run(key, func(t *testing.T) {
			other := fastOpts()
			tweak(&other)
			logs := sharedTwice[configMap](t, e, fastOpts(), other)
			require.Contains(t, logs, "level=WARN")
			require.Contains(t, logs, key)
		})
	}
	t.Run("another transform", func(t *testing.T) {
		first, second := fastOpts(), fastOpts()
		first.Decode.Transform = drop
		second.Decode.Transform = func(cm *configMap) (*configMap, error) { return cm, nil }
		require.Contains(t, sharedTwice[configMap](t, e, first, second), "level=WARN")
	})
	t.Run("FullObjects for a type of metadata", func(t *testing.T) {
		full := informer.Options[*cmMeta]{Observe: informer.ObserveOptions{Logger: quiet()}}
		full.Transport.FullObjects = true
		logs := sharedTwice[cmMeta](t, e, informer.Options[*cmMeta]{Observe: informer.ObserveOptions{Logger: quiet()}}, full)
		require.Contains(t, logs, "level=WARN")
		require.Contains(t, logs, "request=PartialObjectMetadata")
		require.Contains(t, logs, "request=whole")
	})
	t.Run("FullObjects for a type of whole objects changes nothing", func(t *testing.T) {
		full := fastOpts()
		full.Transport.FullObjects = true
		require.Empty(t, sharedTwice[configMap](t, e, fastOpts(), full))
	})
}

// Selectors and the shard are part of what the factory shares by: callers
// that differ in them get informers of their own, and no warning.
func TestFactoryNeverSharesAcrossSelectorsOrShards(t *testing.T) {
	e := newEnv(t)
	var logs bytes.Buffer
	f := informer.NewFactory(e.client, slog.New(slog.NewTextHandler(&logs, nil)))
	base := informer.Shared[configMap](f, cmRef, fastOpts())
	sel, err := shard.Of(0, 2)
	require.NoError(t, err)
	half, err := informer.NewShard(sel)
	require.NoError(t, err)
	for name, tweak := range map[string]func(*informer.Options[*configMap]){
		"label": func(o *informer.Options[*configMap]) { o.LabelSelector = "app=web" },
		"field": func(o *informer.Options[*configMap]) { o.FieldSelector = "metadata.name=a" },
		"shard": func(o *informer.Options[*configMap]) { o.Shard = half },
	} {
		o := fastOpts()
		tweak(&o)
		require.NotSame(t, base, informer.Shared[configMap](f, cmRef, o), name)
	}
	require.Empty(t, logs.String())
}
