package informer_test

import (
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/informer"
	"github.com/zerokube/zerokube/meta"
)

// labelMaps returns the distinct label maps (by identity, not content) of
// the cached objects whose "parity" label is parity.
func labelMaps(inf *informer.Informer[configMap, *configMap], parity string) map[uintptr]bool {
	out := map[uintptr]bool{}
	for _, cm := range inf.Store().List() {
		if cm.Labels["parity"] == parity {
			out[uintptr(reflect.ValueOf(cm.Labels).UnsafePointer())] = true
		}
	}
	return out
}

// TestEqualLabelMapsAreSharedUnlessTransformOrSharerSaysNot: by default the
// objects an informer decodes share equal label maps (meta.Sharer); with a
// Transform, which may modify its argument, or with a Sharer that shares
// nothing, each object has a map of its own; a Sharer given with a
// Transform is the caller's choice. Objects decoded from the watch share
// too.
func TestEqualLabelMapsAreSharedUnlessTransformOrSharerSaysNot(t *testing.T) {
	for _, tc := range []struct {
		name   string
		opts   informer.Options[*configMap]
		shared bool
	}{
		{"default", informer.Options[*configMap]{}, true},
		{"transform", informer.Options[*configMap]{Decode: informer.DecodeOptions[*configMap]{Transform: func(c *configMap) (*configMap, error) { return c, nil }}}, false},
		{"sharer=none", informer.Options[*configMap]{Decode: informer.DecodeOptions[*configMap]{Sharer: meta.NewSharer(0)}}, false},
		{"sharer=maps, transform", informer.Options[*configMap]{
			Decode: informer.DecodeOptions[*configMap]{
				Sharer:    meta.NewSharer(meta.ShareMaps),
				Transform: func(c *configMap) (*configMap, error) { return c, nil },
			},
		}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			// A Sharer remembers one map per slot of a table indexed by a
			// hash with a random seed: two different maps may fall into one
			// slot, and then each replaces the other. The objects are listed
			// by name, so the even ones come first and then the odd ones,
			// and they hold no other map (no data), so that equal maps
			// decode one after another and are shared whatever the seed.
			// (Interleaved with each other and with a data map, 16 runs of
			// 1,500 found two of them in one slot.)
			for i := range 10 {
				putLabels(t, e, fmt.Sprintf("cm-%d-%02d", i%2, i), map[string]string{"parity": fmt.Sprint(i % 2)})
			}
			tc.opts.Observe.Logger = quiet()
			inf := informer.New[configMap](e.client, cmRef, tc.opts)
			run(t, inf)
			synced(t, inf)
			want := 5
			if tc.shared {
				want = 1
			}
			require.Len(t, labelMaps(inf, "1"), want, "the five odd objects' label maps")
			require.Len(t, labelMaps(inf, "0"), want, "the five even objects' label maps")

			// An object created later arrives by the watch.
			putLabels(t, e, "cm-1-10", map[string]string{"parity": "1"})
			require.Eventually(t, func() bool {
				_, ok := inf.Lister().Namespace("default").Get("cm-1-10")
				return ok
			}, wait, 5*time.Millisecond)
			if tc.shared {
				require.Len(t, labelMaps(inf, "1"), 1, "the watched object shares the listed ones' map")
			} else {
				require.Len(t, labelMaps(inf, "1"), 6)
			}
		})
	}
}

// putLabels creates a config map that holds labels and no data.
func putLabels(t *testing.T, e *env, name string, labels map[string]string) {
	t.Helper()
	_, err := e.srv.Create(cmGVR, map[string]any{"metadata": map[string]any{"name": name, "namespace": "default",
		"labels": labels}})
	require.NoError(t, err)
}
