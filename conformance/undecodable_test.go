package conformance

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/apiclient"
	"github.com/zerokube/zerokube/informer"
	"github.com/zerokube/zerokube/internal/testutil"
	"github.com/zerokube/zerokube/kubeproto"
	"github.com/zerokube/zerokube/meta"
)

// A pod both servers store that the user's type refuses is skipped over
// protobuf, the default wire, and named with its path and cause.

// pinnedPod is a user's pod type whose images must be pinned.
type pinnedPod struct {
	meta.TypeMeta
	meta.SlimMeta `json:"metadata"`
	Spec          struct {
		Containers []struct {
			Image testutil.PinnedImage `json:"image"`
		} `json:"containers"`
	} `json:"spec"`
}

func imagePodJSON(name, image string) string {
	return obj(`{"apiVersion":"v1","kind":"Pod","metadata":{"name":%q},"spec":{"containers":[`+
		`{"name":"a","image":"nginx:1.27"},{"name":"b","image":%q}]}}`, name, image)
}

func TestAPodThatDoesNotFitTheTypeIsSkippedOverProtobuf(t *testing.T) {
	for _, streaming := range []bool{false, true} {
		t.Run(map[bool]string{false: "list", true: "streaming list"}[streaming], func(t *testing.T) {
			onBoth(t, func(t *testing.T, tg *target) {
				ns := tg.namespace(t)
				pods := "/api/v1/namespaces/" + ns + "/pods"
				tg.must(t, 201, "POST", pods, imagePodJSON("a", "busybox:1.36"))
				tg.must(t, 201, "POST", pods, imagePodJSON("bad", "nginx:latest"))
				c, log := recordingClient(t, tg)
				inf := informer.New[pinnedPod](c, apiclient.Ref{GVR: meta.GVR{Version: "v1", Resource: "pods"}, Namespace: ns},
					informer.Options[*pinnedPod]{Sync: informer.SyncOptions{StreamingList: streaming}, Decode: informer.DecodeOptions[*pinnedPod]{SkipUndecodable: true}, Observe: informer.ObserveOptions{Logger: quiet()}})
				changed := runInformer(t, inf)
				awaitKeys(t, inf, changed, ns+"/a")
				requireSkipped(t, inf, ns+"/bad")

				// A watch event of a pod that does not fit: the watch ends,
				// the relist skips the pod, and the informer watches on.
				tg.must(t, 201, "POST", pods, imagePodJSON("bad-late", "redis"))
				tg.must(t, 201, "POST", pods, imagePodJSON("late", "redis:7"))
				awaitKeys(t, inf, changed, ns+"/a", ns+"/late")
				requireSkipped(t, inf, ns+"/bad", ns+"/bad-late")

				if !speaksProtobuf(t, tg) {
					t.Skipf("%s does not serve protobuf", tg.name)
				}
				for _, r := range append(log.replies("list"), log.replies("watch")...) {
					require.Contains(t, r, "→ "+kubeproto.ContentType, "every list and watch answered in protobuf")
				}
			})
		})
	}
}

// requireSkipped waits until inf's last list skipped as many objects as
// keys, then checks they are keys, each at the second container's image,
// for testutil.ErrUnpinned.
func requireSkipped(t *testing.T, inf *informer.Informer[pinnedPod, *pinnedPod], keys ...string) {
	t.Helper()
	require.Eventually(t, func() bool { return len(inf.Undecodable()) == len(keys) }, 30*time.Second, 5*time.Millisecond,
		"skipped: %v", inf.Undecodable())
	var got []string
	for _, u := range inf.Undecodable() {
		got = append(got, u.Key)
		require.Equal(t, "/spec/containers/1/image", u.Path, "%s", u.Key)
		require.ErrorIs(t, u.Err, testutil.ErrUnpinned, "%s", u.Key)
	}
	require.ElementsMatch(t, keys, got)
}
