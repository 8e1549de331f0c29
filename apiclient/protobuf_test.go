package apiclient_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/apiclient"
	"github.com/zerokube/zerokube/kubeproto"
	"github.com/zerokube/zerokube/meta"
	"github.com/zerokube/zerokube/protodec"
	"github.com/zerokube/zerokube/watchstream"
)

// pbPod is the protobuf of a small pod, made by kubeproto's transcoder.
func pbPod(t testing.TB, name, rv, phase string) []byte {
	t.Helper()
	m, _ := kubeproto.MessageFor("v1", "Pod")
	b, err := kubeproto.AppendProto(nil, m, fmt.Appendf(nil,
		`{"metadata":{"name":%q,"namespace":"default","resourceVersion":%q,"labels":{"app":"web"}},"status":{"phase":%q}}`,
		name, rv, phase))
	require.NoError(t, err)
	return b
}

// pbPodList is a PodList reply in its envelope, as kube-apiserver sends it.
func pbPodList(lm kubeproto.ListMeta, items ...[]byte) []byte {
	var raw []byte
	raw = kubeproto.AppendListMeta(raw, lm)
	for _, it := range items {
		raw = kubeproto.AppendListItem(raw, it)
	}
	return kubeproto.AppendEnvelope(nil, kubeproto.Envelope{APIVersion: "v1", Kind: "PodList", Raw: raw})
}

func protobufReply(w http.ResponseWriter, code int, body []byte) {
	w.Header().Set("Content-Type", kubeproto.ContentType)
	w.WriteHeader(code)
	_, _ = w.Write(body)
}

func TestAProtobufListIsDecodedItemByItemIntoTheCallersType(t *testing.T) {
	var accept string
	body := pbPodList(kubeproto.ListMeta{ResourceVersion: "77", Continue: "next"},
		pbPod(t, "a", "5", "Running"), pbPod(t, "b", "6", "Pending"))
	c, _ := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		accept = r.Header.Get("Accept")
		protobufReply(w, 200, body)
	})
	var got []string
	lm, err := apiclient.List[pod](context.Background(), c, podsRef,
		apiclient.ListOptions{Decode: watchstream.Options{Protobuf: protodec.New(protodec.Options{})}}, func(p *pod) error {
			got = append(got, fmt.Sprintf("%s/%s %s %s %s/%s", p.Namespace, p.Name, p.ResourceVersion, p.Status.Phase, p.APIVersion, p.Kind))
			return nil
		})
	require.NoError(t, err)
	require.Equal(t, apiclient.AcceptProtobuf, accept)
	require.Equal(t, "77", lm.ResourceVersion)
	require.Equal(t, "next", lm.Continue)
	require.Equal(t, []string{"default/a 5 Running v1/Pod", "default/b 6 Pending v1/Pod"}, got)
}

func TestAJSONReplyToAProtobufRequestIsDecodedAsJSON(t *testing.T) {
	c, _ := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"kind":"WidgetList","apiVersion":"x.io/v1","metadata":{"resourceVersion":"3"},"items":[{"metadata":{"name":"w"}}]}`))
	})
	var names []string
	_, err := apiclient.List[pod](context.Background(), c, podsRef,
		apiclient.ListOptions{Decode: watchstream.Options{Protobuf: protodec.New(protodec.Options{})}}, func(p *pod) error {
			names = append(names, p.Name+" "+p.Kind)
			return nil
		})
	require.NoError(t, err)
	require.Equal(t, []string{"w Widget"}, names)
}

func TestAListWithoutADecoderAsksForJSONOnly(t *testing.T) {
	var accept string
	c, _ := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		accept = r.Header.Get("Accept")
		_, _ = w.Write([]byte(`{"kind":"PodList","apiVersion":"v1","metadata":{},"items":[]}`))
	})
	_, err := apiclient.List[pod](context.Background(), c, podsRef, apiclient.ListOptions{}, func(*pod) error { return nil })
	require.NoError(t, err)
	require.Equal(t, "application/json", accept)
}

func TestABrokenProtobufListNamesTheItemAndTheByte(t *testing.T) {
	good := pbPodList(kubeproto.ListMeta{ResourceVersion: "1"}, pbPod(t, "a", "5", "Running"), pbPod(t, "b", "6", "Running"))
	for _, tc := range []struct {
		name, body, want string
	}{
		{"no magic", "{}", "k8s"},
		{"cut inside the second item", string(good[:len(good)-5]), "item 2"},
		{"an unknown list kind", string(kubeproto.AppendEnvelope(nil, kubeproto.Envelope{APIVersion: "v9", Kind: "NopeList", Raw: []byte{0x12, 0}})), "not in the protobuf table"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, _ := newServer(t, func(w http.ResponseWriter, r *http.Request) { protobufReply(w, 200, []byte(tc.body)) })
			_, err := apiclient.List[pod](context.Background(), c, podsRef,
				apiclient.ListOptions{Decode: watchstream.Options{Protobuf: protodec.New(protodec.Options{})}}, func(*pod) error { return nil })
			require.ErrorContains(t, err, tc.want)
			require.ErrorContains(t, err, "byte")
		})
	}
}

func TestAProtobufItemThatDoesNotFitIsSkippedAndNamed(t *testing.T) {
	m, _ := kubeproto.MessageFor("v1", "Pod")
	bad, err := kubeproto.AppendProto(nil, m, []byte(`{"metadata":{"name":"bad","namespace":"default","generation":5000000000}}`))
	require.NoError(t, err)
	body := pbPodList(kubeproto.ListMeta{ResourceVersion: "1"}, bad, pbPod(t, "ok", "6", "Running"))
	c, _ := newServer(t, func(w http.ResponseWriter, r *http.Request) { protobufReply(w, 200, body) })
	var skipped []*watchstream.DecodeError
	var kept []string
	_, err = apiclient.List[smallObj](context.Background(), c, podsRef, apiclient.ListOptions{Decode: watchstream.Options{
		Protobuf:        protodec.New(protodec.Options{}),
		SkipUndecodable: func(e *watchstream.DecodeError) { skipped = append(skipped, e) },
	}}, func(o *smallObj) error { kept = append(kept, o.Metadata.Name); return nil })
	require.NoError(t, err)
	require.Equal(t, []string{"ok"}, kept)
	require.Len(t, skipped, 1)
	require.Equal(t, 0, skipped[0].Item)
	require.Equal(t, "default/bad", skipped[0].Object)
	require.Equal(t, "/metadata/generation", skipped[0].Path)
}

// smallObj declares generation as an int32, which 5,000,000,000 overflows.
type smallObj struct {
	Metadata struct {
		Name       string `json:"name"`
		Namespace  string `json:"namespace"`
		RV         string `json:"resourceVersion"`
		Generation int32  `json:"generation"`
	} `json:"metadata"`
}

func (o *smallObj) GetName() string              { return o.Metadata.Name }
func (o *smallObj) GetNamespace() string         { return o.Metadata.Namespace }
func (o *smallObj) GetResourceVersion() string   { return o.Metadata.RV }
func (o *smallObj) GetLabels() map[string]string { return nil }

func TestAProtobufStatusReplyBecomesAStatusError(t *testing.T) {
	st, _ := kubeproto.MessageFor("v1", "Status")
	raw, err := kubeproto.AppendProto(nil, st, []byte(`{"status":"Failure","message":"pods is forbidden","reason":"Forbidden","code":403}`))
	require.NoError(t, err)
	body := kubeproto.AppendEnvelope(nil, kubeproto.Envelope{APIVersion: "v1", Kind: "Status", Raw: raw})
	c, _ := newServer(t, func(w http.ResponseWriter, r *http.Request) { protobufReply(w, 403, body) })
	_, err = apiclient.List[pod](context.Background(), c, podsRef,
		apiclient.ListOptions{Decode: watchstream.Options{Protobuf: protodec.New(protodec.Options{})}}, func(*pod) error { return nil })
	require.True(t, meta.IsForbidden(err), "%v", err)
	var se *meta.StatusError
	require.True(t, errors.As(err, &se))
	require.Equal(t, "pods is forbidden", se.Status.Message)
}
