package informer_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/cache"
	"github.com/zerokube/zerokube/informer"
	"github.com/zerokube/zerokube/meta"
)

// slimConfigMap embeds meta.SlimMeta, not ObjectMeta: an informer of it must
// sync by either kind of list (the streaming one ends on a bookmark's
// annotation, which the type does not keep), select by label, and follow
// changes.
type slimConfigMap struct {
	meta.SlimMeta `json:"metadata"`
	Data          map[string]string `json:"data,omitempty"`
}

func TestSlimMetaTypesSyncSelectAndFollow(t *testing.T) {
	for _, streaming := range []bool{false, true} {
		t.Run(fmt.Sprintf("streaming=%t", streaming), func(t *testing.T) {
			e := newEnv(t)
			for i := range 30 {
				e.put(t, fmt.Sprintf("cm-%02d", i), "0", map[string]string{"parity": fmt.Sprint(i % 2)})
			}
			inf := informer.New[slimConfigMap](e.client, cmRef, informer.Options[*slimConfigMap]{
				Sync:    informer.SyncOptions{StreamingList: streaming},
				Observe: informer.ObserveOptions{Logger: quiet()},
			})
			run(t, inf)
			synced(t, inf)
			require.Equal(t, 30, inf.Store().Len())

			sel, err := meta.ParseLabelSelector("parity=1")
			require.NoError(t, err)
			odd := inf.Lister().List(sel)
			require.Len(t, odd, 15)
			for _, cm := range odd {
				require.Equal(t, "1", cm.Labels["parity"])
				require.NotEmpty(t, cm.UID)
			}

			e.put(t, "cm-03", "changed", map[string]string{"parity": "1"})
			require.Eventually(t, func() bool {
				cm, ok := inf.Lister().Namespace("default").Get("cm-03")
				return ok && cm.Data["v"] == "changed"
			}, wait, 5*time.Millisecond)
		})
	}
}

// untaggedSlim forgets the json:"metadata" tag: its embedded fields would be
// read from the top level of each object, and every object cached under "".
type untaggedSlim struct {
	meta.SlimMeta
	Data map[string]string `json:"data,omitempty"`
}

func TestTypeWithoutMetadataTagIsRefused(t *testing.T) {
	e := newEnv(t)
	inf := informer.New[untaggedSlim](e.client, cmRef, informer.Options[*untaggedSlim]{Observe: informer.ObserveOptions{Logger: quiet()}})
	require.ErrorContains(t, inf.Run(t.Context()), "untaggedSlim does not decode")
	require.ErrorContains(t, inf.WaitForSync(t.Context()), "untaggedSlim does not decode")
	require.ErrorContains(t, inf.WaitForSync(t.Context()), `json:"metadata"`, "and says what to add")
}

func TestAddIndexersBeforeAndAfterRun(t *testing.T) {
	e := newEnv(t)
	e.put(t, "a", "x", map[string]string{"team": "red"})
	inf := informer.New[slimConfigMap](e.client, cmRef, informer.Options[*slimConfigMap]{Observe: informer.ObserveOptions{Logger: quiet()}})
	byValue := func(cm *slimConfigMap) ([]string, error) { return []string{cm.Data["v"]}, nil }
	byTeam := func(cm *slimConfigMap) ([]string, error) { return []string{cm.Labels["team"]}, nil }
	require.NoError(t, inf.AddIndexers(cache.Indexers[*slimConfigMap]{"value": byValue}))
	run(t, inf)
	synced(t, inf)
	require.NoError(t, inf.AddIndexers(cache.Indexers[*slimConfigMap]{"team": byTeam}))
	for _, ix := range [][2]string{{"value", "x"}, {"team", "red"}} {
		got, err := inf.Store().ByIndex(ix[0], ix[1])
		require.NoError(t, err)
		require.Len(t, got, 1, ix[0])
	}
	require.ErrorIs(t, inf.AddIndexers(cache.Indexers[*slimConfigMap]{"team": byTeam}), cache.ErrIndexExists)
}
