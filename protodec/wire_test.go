package protodec

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/internal/pbwire"
	"github.com/zerokube/zerokube/kubeproto"
	"github.com/zerokube/zerokube/meta"
)

// The tests in this file give the decoder protobuf built by hand: the
// encodings a conforming encoder may write but kube-apiserver's (and the
// transcoder's) never does. Packed scalars, a field that occurs twice, a
// map split by other fields, lengths at and past their bounds.

// pb is protobuf built by hand.
type pb []byte

func (b pb) varint(num int, x uint64) pb {
	return pbwire.AppendVarint(pbwire.AppendTag(b, num, pbwire.Varint), x)
}

func (b pb) bytes(num int, v []byte) pb {
	b = pbwire.AppendVarint(pbwire.AppendTag(b, num, pbwire.Bytes), uint64(len(v)))
	return append(b, v...)
}

func (b pb) str(num int, s string) pb { return b.bytes(num, []byte(s)) }
func (b pb) msg(num int, m pb) pb     { return b.bytes(num, m) }

// entry appends a map<string,string> entry as field num.
func (b pb) entry(num int, k, v string) pb { return b.msg(num, pb{}.str(1, k).str(2, v)) }

// packed is a packed run of varints, the content of one length-delimited field.
func packed(xs ...uint64) pb {
	var b pb
	for _, x := range xs {
		b = pbwire.AppendVarint(b, x)
	}
	return b
}

// Field numbers of the messages these tests build, from k8s.io/api's
// generated.proto; TestTheHandBuiltFieldNumbersAreTheSchemas checks them.
const (
	fMetadata, fSpec, fStatus = 1, 2, 3 // Pod, Lease

	fName, fNamespace, fGeneration, fCreated, fLabels, fAnnotations, fFinalizers = 1, 3, 7, 8, 11, 12, 14 // ObjectMeta

	fContainers, fNodeName, fSecurityContext = 2, 10, 14 // PodSpec
	fSupplementalGroups                      = 4         // PodSecurityContext
	fContainerName, fPorts, fResources       = 1, 6, 8   // Container
	fContainerPort                           = 3         // ContainerPort
	fLimits                                  = 1         // ResourceRequirements
	fPhase, fPodIP                           = 1, 6      // PodStatus
	fRenewTime                               = 4         // LeaseSpec
	fSeconds, fNanos                         = 1, 2      // Time, MicroTime
)

func TestTheHandBuiltFieldNumbersAreTheSchemas(t *testing.T) {
	pod, lease := podMessage(t), leaseMessage(t)
	for _, c := range []struct {
		m    kubeproto.Message
		path string
		num  int
	}{
		{pod, "metadata", fMetadata}, {pod, "spec", fSpec}, {pod, "status", fStatus},
		{pod, "metadata.name", fName}, {pod, "metadata.namespace", fNamespace},
		{pod, "metadata.generation", fGeneration}, {pod, "metadata.creationTimestamp", fCreated},
		{pod, "metadata.labels", fLabels}, {pod, "metadata.annotations", fAnnotations},
		{pod, "metadata.finalizers", fFinalizers},
		{pod, "spec.containers", fContainers}, {pod, "spec.nodeName", fNodeName},
		{pod, "spec.securityContext", fSecurityContext},
		{pod, "spec.securityContext.supplementalGroups", fSupplementalGroups},
		{pod, "spec.containers.name", fContainerName}, {pod, "spec.containers.ports", fPorts},
		{pod, "spec.containers.resources", fResources},
		{pod, "spec.containers.ports.containerPort", fContainerPort},
		{pod, "spec.containers.resources.limits", fLimits},
		{pod, "status.phase", fPhase}, {pod, "status.podIP", fPodIP},
		{lease, "spec.renewTime", fRenewTime},
	} {
		m := c.m
		var f kubeproto.Field
		for _, name := range strings.Split(c.path, ".") {
			var ok bool
			f, ok = m.FieldByJSON(name)
			require.True(t, ok, c.path)
			m = f.Message()
		}
		assert.Equal(t, c.num, f.Number(), c.path)
	}
}

func leaseMessage(t testing.TB) kubeproto.Message {
	m, ok := kubeproto.MessageFor("coordination.k8s.io/v1", "Lease")
	require.True(t, ok)
	return m
}

// wirePod declares a field of each way the decoder reads one.
type wirePod struct {
	Metadata struct {
		Name        string            `json:"name"`
		Namespace   string            `json:"namespace"`
		Generation  int64             `json:"generation"`
		Created     time.Time         `json:"creationTimestamp"`
		Labels      map[string]string `json:"labels"`      // map<string,string>, through a Sharer when given
		Annotations map[string]label  `json:"annotations"` // a map of another value type
		Finalizers  []string          `json:"finalizers"`
	} `json:"metadata"`
	Spec struct {
		NodeName        string `json:"nodeName"`
		SecurityContext *struct {
			SupplementalGroups []int64 `json:"supplementalGroups"`
		} `json:"securityContext"`
		Containers []struct {
			Name  string `json:"name"`
			Ports []struct {
				ContainerPort int32 `json:"containerPort"`
			} `json:"ports"`
		} `json:"containers"`
	} `json:"spec"`
	Status struct {
		Phase string `json:"phase"`
	} `json:"status"`
}

type label string

// selfDecoding is a string with its own unmarshal method: the decoder leaves it,
// and a map or list of it, to the JSON decoder.
type selfDecoding string

func (c *selfDecoding) UnmarshalJSON(b []byte) error { return json.Unmarshal(b, (*string)(c)) }

// viaJSONPod declares the same fields as types the decoder leaves to the
// JSON decoder, whose JSON it writes from the protobuf itself.
type viaJSONPod struct {
	Metadata struct {
		Name       string                  `json:"name"`
		Created    jsontext.Value          `json:"creationTimestamp"`
		Labels     map[string]selfDecoding `json:"labels"`
		Finalizers jsontext.Value          `json:"finalizers"`
	} `json:"metadata"`
	Spec struct {
		SecurityContext struct {
			SupplementalGroups jsontext.Value `json:"supplementalGroups"`
		} `json:"securityContext"`
	} `json:"spec"`
}

func decodePod[T any](t *testing.T, d *Decoder, b pb) (T, error) {
	t.Helper()
	var v T
	err := d.Unmarshal(podMessage(t), b, &v)
	return v, err
}

// transcoded is what kubeproto's transcoder makes of b: the JSON form the
// decoder must agree with.
func transcoded(t *testing.T, m kubeproto.Message, b pb) string {
	t.Helper()
	j, err := kubeproto.AppendJSON(nil, m, b)
	require.NoError(t, err)
	return string(j)
}

// A length that runs past the end of its message into the bytes of the
// field after it is malformed, however deep: the decoder fails rather
// than read the next field's bytes as this one's.
func TestALengthPastItsMessageFails(t *testing.T) {
	// next is the field after the one whose length overruns: one no
	// message here declares, so it is stepped over when read as itself,
	// and makes well-formed bytes of whatever an overrun reads it as.
	next := pb{}.str(99, "xyzw")
	// over makes field f's length overrun f by the length of next.
	over := func(f pb) pb {
		_, _, n := pbwire.ConsumeTag(f)
		f[n] += byte(len(next))
		return f
	}
	for _, c := range []struct {
		name string
		in   pb
	}{
		{"a top-level field past the input", over(pb{}.str(99, "web"))},
		{"a string past its message", pb{}.msg(fMetadata, over(pb{}.str(fName, "web"))).raw(next...)},
		{"a message past its message", pb{}.msg(fSpec, over(pb{}.msg(fSecurityContext, nil))).raw(next...)},
		{"a string past its message's message", pb{}.msg(fSpec, pb{}.msg(fSecurityContext,
			over(pb{}.str(9, "web"))).raw(next...))},
		{"a Time past its message", pb{}.msg(fMetadata, over(pb{}.msg(fCreated, nil))).raw(next...)},
		{"a Time's field past the Time", pb{}.msg(fMetadata, pb{}.msg(fCreated, over(pb{}.str(9, "web"))).raw(next...))},
		{"a map entry past its message", pb{}.msg(fMetadata, over(pb{}.entry(fLabels, "k", "v"))).raw(next...)},
		{"a map key past its entry", pb{}.msg(fMetadata, pb{}.msg(fLabels, over(pb{}.str(1, "k"))).raw(next...))},
		{"a packed run past its message", pb{}.msg(fSpec, pb{}.msg(fSecurityContext,
			over(pb{}.bytes(fSupplementalGroups, packed(1, 2)))).raw(next...))},
		{"a varint cut by its message's end", pb{}.msg(fMetadata, pb{}.raw(0x38, 0x80)).raw(next...)},
	} {
		t.Run(c.name, func(t *testing.T) {
			// The input's capacity holds next again, as a buffer read
			// from the network may: a length checked against the
			// capacity instead of the length reads it.
			in := append(make(pb, 0, len(c.in)+len(next)), c.in...)
			_ = append(in, next...)
			_, err := decodePod[wirePod](t, New(Options{}), in)
			require.ErrorIs(t, err, errWire)
			assert.False(t, IsContentError(err), "malformed, not a value that does not fit: %v", err)
			_, err = decodePod[viaJSONPod](t, New(Options{}), in)
			require.Error(t, err)
			assert.False(t, IsContentError(err), "%v", err)
		})
	}
}

func (b pb) raw(x ...byte) pb { return append(b, x...) }

// At their bounds, lengths hold exactly their value: a string ending on
// its message's last byte and an empty string at the very end decode.
func TestALengthEndingOnItsMessagesLastByteDecodes(t *testing.T) {
	in := pb{}.msg(fMetadata, pb{}.str(fNamespace, "").str(fName, strings.Repeat("n", 200))).
		msg(fStatus, pb{}.str(fPhase, "Running").str(fPodIP, ""))
	p, err := decodePod[wirePod](t, New(Options{}), in)
	require.NoError(t, err)
	assert.Equal(t, strings.Repeat("n", 200), p.Metadata.Name)
	assert.Equal(t, "Running", p.Status.Phase)
}

// Protobuf parsers accept a repeated scalar packed (one length-delimited
// run) or not (one field each), and both in one message; proto3 writers
// pack by default. kube-apiserver's gogo encoder writes them unpacked.
func TestPackedRepeatedScalarsDecodeAsUnpackedOnes(t *testing.T) {
	sc := func(groups pb) pb { return pb{}.msg(fSpec, pb{}.msg(fSecurityContext, groups)) }
	want := []int64{1000, 1, 0, 1 << 40}
	for _, c := range []struct {
		name string
		in   pb
	}{
		{"unpacked", sc(pb{}.varint(fSupplementalGroups, 1000).varint(fSupplementalGroups, 1).
			varint(fSupplementalGroups, 0).varint(fSupplementalGroups, 1<<40))},
		{"packed", sc(pb{}.bytes(fSupplementalGroups, packed(1000, 1, 0, 1<<40)))},
		{"two packed runs", sc(pb{}.bytes(fSupplementalGroups, packed(1000, 1)).bytes(fSupplementalGroups, packed(0, 1<<40)))},
		{"packed and unpacked mixed", sc(pb{}.varint(fSupplementalGroups, 1000).
			bytes(fSupplementalGroups, packed(1, 0)).varint(fSupplementalGroups, 1<<40))},
		{"an empty packed run among them", sc(pb{}.bytes(fSupplementalGroups, nil).
			bytes(fSupplementalGroups, packed(1000, 1, 0, 1<<40)))},
	} {
		t.Run(c.name, func(t *testing.T) {
			p, err := decodePod[wirePod](t, New(Options{}), c.in)
			require.NoError(t, err)
			require.NotNil(t, p.Spec.SecurityContext)
			assert.Equal(t, want, p.Spec.SecurityContext.SupplementalGroups)

			v, err := decodePod[viaJSONPod](t, New(Options{}), c.in)
			require.NoError(t, err)
			assert.JSONEq(t, `[1000,1,0,1099511627776]`, string(v.Spec.SecurityContext.SupplementalGroups))

			assert.Contains(t, transcoded(t, podMessage(t), c.in), `"supplementalGroups":[1000,1,0,1099511627776]`)
		})
	}
}

func TestAPackedRunCutInsideAValueFails(t *testing.T) {
	in := pb{}.msg(fSpec, pb{}.msg(fSecurityContext, pb{}.bytes(fSupplementalGroups, pb{0xe8, 0x87})))
	_, err := decodePod[wirePod](t, New(Options{}), in)
	require.ErrorIs(t, err, errWire)
	_, err = decodePod[viaJSONPod](t, New(Options{}), in)
	require.ErrorIs(t, err, errWire)
}

// A field that occurs twice: the last occurrence wins for a scalar (and
// for each scalar inside a special message), two occurrences of a message
// merge, as protobuf parsers do.
func TestTheLastOccurrenceOfAScalarWinsAndMessagesMerge(t *testing.T) {
	d := New(Options{})
	p, err := decodePod[wirePod](t, d, pb{}.
		msg(fMetadata, pb{}.str(fName, "first").varint(fGeneration, 1).
			msg(fCreated, pb{}.varint(fSeconds, 100).varint(fSeconds, 1_700_000_000))).
		msg(fSpec, pb{}.str(fNodeName, "n1").
			msg(fContainers, pb{}.str(fContainerName, "a").
				msg(fPorts, pb{}.varint(fContainerPort, 1).varint(fContainerPort, 8080)))).
		msg(fMetadata, pb{}.str(fNamespace, "ns").str(fName, "second")).
		msg(fSpec, pb{}.str(fNodeName, "n2").msg(fContainers, pb{}.str(fContainerName, "b"))).
		msg(fStatus, pb{}.str(fPhase, "Pending")).
		msg(fStatus, pb{}.str(fPhase, "Running")))
	require.NoError(t, err)
	assert.Equal(t, "second", p.Metadata.Name, "the last of two names")
	assert.Equal(t, "ns", p.Metadata.Namespace, "the second metadata merged into the first")
	assert.Equal(t, int64(1), p.Metadata.Generation, "kept from the first metadata")
	assert.Equal(t, time.Unix(1_700_000_000, 0).UTC(), p.Metadata.Created, "the last of two seconds")
	assert.Equal(t, "n2", p.Spec.NodeName)
	require.Len(t, p.Spec.Containers, 2, "a repeated field of merged messages holds both's elements")
	assert.Equal(t, "a", p.Spec.Containers[0].Name)
	assert.Equal(t, "b", p.Spec.Containers[1].Name)
	require.Len(t, p.Spec.Containers[0].Ports, 1)
	assert.Equal(t, int32(8080), p.Spec.Containers[0].Ports[0].ContainerPort)
	assert.Equal(t, "Running", p.Status.Phase)
}

func TestTheLastOccurrenceWinsInsideSpecialMessagesAndMapEntries(t *testing.T) {
	in := pb{}.msg(fMetadata, pb{}.
		msg(fLabels, pb{}.str(1, "old").str(1, "app").str(2, "x").str(2, "web")).
		entry(fLabels, "dup", "first").entry(fLabels, "dup", "last").
		msg(fAnnotations, pb{}.str(1, "note").str(2, "a").str(2, "b")).
		entry(fAnnotations, "dup", "first").entry(fAnnotations, "dup", "last")).
		msg(fSpec, pb{}.msg(fContainers, pb{}.msg(fResources, pb{}.
			msg(fLimits, pb{}.str(1, "cpu").msg(2, pb{}.str(1, "1").str(1, "500m"))))))
	type limits struct {
		Spec struct {
			Containers []struct {
				Resources struct {
					Limits map[string]string `json:"limits"`
				} `json:"resources"`
			} `json:"containers"`
		} `json:"spec"`
	}
	d := New(Options{})
	p, err := decodePod[wirePod](t, d, in)
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"app": "web", "dup": "last"}, p.Metadata.Labels)
	assert.Equal(t, map[string]label{"note": "b", "dup": "last"}, p.Metadata.Annotations)
	l, err := decodePod[limits](t, d, in)
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"cpu": "500m"}, l.Spec.Containers[0].Resources.Limits)
	v, err := decodePod[viaJSONPod](t, d, in)
	require.NoError(t, err)
	assert.Equal(t, map[string]selfDecoding{"app": "web", "dup": "last"}, v.Metadata.Labels)

	var fromJSON wirePod
	require.NoError(t, json.Unmarshal([]byte(transcoded(t, podMessage(t), in)), &fromJSON, lenient))
	assert.Equal(t, p.Metadata.Labels, fromJSON.Metadata.Labels, "the transcoder agrees")
	assert.Equal(t, p.Metadata.Annotations, fromJSON.Metadata.Annotations, "the transcoder agrees")
	var limitsFromJSON limits
	require.NoError(t, json.Unmarshal([]byte(transcoded(t, podMessage(t), in)), &limitsFromJSON, lenient))
	assert.Equal(t, l, limitsFromJSON, "the transcoder agrees")
}

// metav1.MicroTime's JSON has microseconds (RFC3339Micro): the protobuf's
// nanoseconds are cut to them, so both wires give the same time; a Time's
// JSON has seconds.
func TestMicroTimeKeepsMicrosecondsAndTimeSeconds(t *testing.T) {
	type lease struct {
		Spec struct {
			RenewTime *time.Time `json:"renewTime"`
		} `json:"spec"`
	}
	in := pb{}.msg(fSpec, pb{}.msg(fRenewTime, pb{}.varint(fSeconds, 1_700_000_000).varint(fNanos, 123_456_789)))
	var l lease
	require.NoError(t, New(Options{}).Unmarshal(leaseMessage(t), in, &l))
	require.NotNil(t, l.Spec.RenewTime)
	want := time.Unix(1_700_000_000, 123_456_000).UTC()
	assert.Equal(t, want, *l.Spec.RenewTime)
	j := transcoded(t, leaseMessage(t), in)
	assert.Contains(t, j, `"renewTime":"2023-11-14T22:13:20.123456Z"`)
	var fromJSON lease
	require.NoError(t, json.Unmarshal([]byte(j), &fromJSON))
	assert.Equal(t, want, *fromJSON.Spec.RenewTime, "the JSON form decodes to the same time")

	in = pb{}.msg(fSpec, pb{}.msg(fRenewTime, pb{}.varint(fSeconds, 1_700_000_000).varint(fNanos, 999)))
	assert.Contains(t, transcoded(t, leaseMessage(t), in), `"renewTime":"2023-11-14T22:13:20.000000Z"`,
		"always six digits, as RFC3339Micro")
	require.NoError(t, New(Options{}).Unmarshal(leaseMessage(t), in, &l))
	assert.Equal(t, time.Unix(1_700_000_000, 0).UTC(), *l.Spec.RenewTime)

	p, err := decodePod[wirePod](t, New(Options{}), pb{}.msg(fMetadata,
		pb{}.msg(fCreated, pb{}.varint(fSeconds, 1_700_000_000).varint(fNanos, 123_456_789))))
	require.NoError(t, err)
	assert.Equal(t, time.Unix(1_700_000_000, 0).UTC(), p.Metadata.Created)
}

// Invalid UTF-8 becomes U+FFFD in strings of every length, as in the JSON
// kube-apiserver writes: short strings go through the memo of recent
// strings, longer ones do not.
func TestInvalidUTF8BecomesU_FFFDInStringsOfEveryLength(t *testing.T) {
	for _, n := range []int{1, maxMemo - 1, maxMemo, maxMemo + 1, 300} {
		raw := strings.Repeat("a", n-1) + "\xff"
		want := strings.Repeat("a", n-1) + "\uFFFD"
		in := pb{}.msg(fMetadata, pb{}.str(fName, raw).str(fFinalizers, raw).entry(fLabels, raw, raw))
		p, err := decodePod[wirePod](t, New(Options{}), in)
		require.NoError(t, err, n)
		assert.Equal(t, want, p.Metadata.Name, n)
		assert.Equal(t, []string{want}, p.Metadata.Finalizers, n)
		assert.Equal(t, map[string]string{want: want}, p.Metadata.Labels, n)
		assert.True(t, reflect.DeepEqual(p.Metadata.Labels, map[string]string{want: want}), n)
	}
}

// A map's entries split by other fields are one map, as protobuf parsers
// read them; and the same map, whole or split, is the same for a Sharer.
func TestAMapSplitByOtherFieldsIsOneMapAndSharedWithTheWholeOne(t *testing.T) {
	whole := pb{}.msg(fMetadata, pb{}.str(fName, "a").
		entry(fLabels, "app", "web").entry(fLabels, "tier", "front").
		entry(fAnnotations, "k", "v").str(fNamespace, "ns"))
	split := pb{}.msg(fMetadata, pb{}.entry(fLabels, "app", "web").str(fName, "b").
		entry(fAnnotations, "k", "v").entry(fLabels, "tier", "front").str(fNamespace, "ns"))
	splitOtherwise := pb{}.msg(fMetadata, pb{}.entry(fLabels, "app", "web").str(fName, "c").
		str(fNamespace, "other").entry(fLabels, "tier", "front"))
	labels := map[string]string{"app": "web", "tier": "front"}

	d := New(Options{Sharer: meta.NewSharer(meta.ShareMaps)})
	var ps []wirePod
	for _, in := range []pb{whole, split, splitOtherwise} {
		p, err := decodePod[wirePod](t, d, in)
		require.NoError(t, err)
		assert.Equal(t, labels, p.Metadata.Labels)
		ps = append(ps, p)
	}
	assert.Equal(t, map[string]label{"k": "v"}, ps[1].Metadata.Annotations)
	for i, p := range ps[1:] {
		assert.Equal(t, reflect.ValueOf(ps[0].Metadata.Labels).UnsafePointer(),
			reflect.ValueOf(p.Metadata.Labels).UnsafePointer(), "object %d holds the first one's map", i+1)
	}

	v, err := decodePod[viaJSONPod](t, New(Options{}), split)
	require.NoError(t, err)
	assert.Equal(t, map[string]selfDecoding{"app": "web", "tier": "front"}, v.Metadata.Labels)
	assert.Contains(t, transcoded(t, podMessage(t), split), `"labels":{"app":"web","tier":"front"}`)
}

// Two occurrences of a message merge all the way down: a map or list in
// each holds both's entries, a special message's fields merge, on the
// decoder's fast path, through the JSON decoder, and in the transcoder.
func TestMessagesThatOccurTwiceMergeTheirMapsListsAndTimes(t *testing.T) {
	in := pb{}.
		msg(fMetadata, pb{}.str(fName, "web").entry(fLabels, "app", "web").entry(fAnnotations, "a", "1").
			str(fFinalizers, "f1").msg(fCreated, pb{}.varint(fSeconds, 1_700_000_000))).
		msg(fSpec, pb{}.msg(fSecurityContext, pb{}.varint(fSupplementalGroups, 1))).
		msg(fMetadata, pb{}.entry(fLabels, "tier", "front").entry(fAnnotations, "b", "2").
			str(fFinalizers, "f2").msg(fCreated, pb{}.varint(fNanos, 5))).
		msg(fSpec, pb{}.msg(fSecurityContext, pb{}.bytes(fSupplementalGroups, packed(2, 3)))).
		msg(fMetadata, pb{}.entry(fLabels, "app", "api"))
	labels := map[string]string{"app": "api", "tier": "front"}

	for _, sharer := range []*meta.Sharer{nil, meta.NewSharer(meta.ShareMaps)} {
		p, err := decodePod[wirePod](t, New(Options{Sharer: sharer}), in)
		require.NoError(t, err)
		assert.Equal(t, "web", p.Metadata.Name)
		assert.Equal(t, labels, p.Metadata.Labels)
		assert.Equal(t, map[string]label{"a": "1", "b": "2"}, p.Metadata.Annotations)
		assert.Equal(t, []string{"f1", "f2"}, p.Metadata.Finalizers)
		assert.Equal(t, time.Unix(1_700_000_000, 0).UTC(), p.Metadata.Created, "seconds from the first, nanos (cut) from the second")
		require.NotNil(t, p.Spec.SecurityContext)
		assert.Equal(t, []int64{1, 2, 3}, p.Spec.SecurityContext.SupplementalGroups)
	}

	v, err := decodePod[viaJSONPod](t, New(Options{}), in)
	require.NoError(t, err)
	assert.Equal(t, map[string]selfDecoding{"app": "api", "tier": "front"}, v.Metadata.Labels)
	assert.JSONEq(t, `["f1","f2"]`, string(v.Metadata.Finalizers))
	assert.JSONEq(t, `[1,2,3]`, string(v.Spec.SecurityContext.SupplementalGroups))

	j := transcoded(t, podMessage(t), in)
	var fromJSON wirePod
	require.NoError(t, json.Unmarshal([]byte(j), &fromJSON, lenient))
	assert.Equal(t, "web", fromJSON.Metadata.Name, j)
	assert.Equal(t, labels, fromJSON.Metadata.Labels, j)
	assert.Equal(t, []string{"f1", "f2"}, fromJSON.Metadata.Finalizers, j)
	assert.Equal(t, []int64{1, 2, 3}, fromJSON.Spec.SecurityContext.SupplementalGroups, j)
}

// The transcoder too takes a scalar's last occurrence.
func TestTheTranscoderTakesAScalarsLastOccurrence(t *testing.T) {
	in := pb{}.msg(fMetadata, pb{}.str(fName, "first").varint(fGeneration, 1).str(fName, "last").varint(fGeneration, 2)).
		msg(fStatus, pb{}.str(fPhase, "Pending").str(fPodIP, "10.0.0.1").str(fPhase, "Running"))
	var fromJSON, fromProto wirePod
	require.NoError(t, json.Unmarshal([]byte(transcoded(t, podMessage(t), in)), &fromJSON))
	require.NoError(t, New(Options{}).Unmarshal(podMessage(t), in, &fromProto))
	assert.Equal(t, "last", fromJSON.Metadata.Name)
	assert.Equal(t, int64(2), fromJSON.Metadata.Generation)
	assert.Equal(t, "Running", fromJSON.Status.Phase)
	assert.Equal(t, fromJSON, fromProto)
}

// An int32 varint is read as protobuf parsers read it: its low 32 bits,
// sign-extended (a negative one may come in 10 bytes or in 5), whatever
// the Go type holding it.
func TestAnInt32VarintIsItsLow32BitsSignExtended(t *testing.T) {
	type wide struct {
		Spec struct {
			Containers []struct {
				Ports []struct {
					ContainerPort int64 `json:"containerPort"`
				} `json:"ports"`
			} `json:"containers"`
		} `json:"spec"`
	}
	for _, c := range []struct {
		varint uint64
		want   int64
	}{
		{80, 80}, {1<<64 - 1, -1}, {0xffffffff, -1}, {1<<32 | 80, 80}, {0x80000000, -1 << 31},
	} {
		in := pb{}.msg(fSpec, pb{}.msg(fContainers, pb{}.msg(fPorts, pb{}.varint(fContainerPort, c.varint))))
		var w wide
		require.NoError(t, New(Options{}).Unmarshal(podMessage(t), in, &w), c.varint)
		assert.Equal(t, c.want, w.Spec.Containers[0].Ports[0].ContainerPort, "%#x", c.varint)
		var fromJSON wide
		require.NoError(t, json.Unmarshal([]byte(transcoded(t, podMessage(t), in)), &fromJSON))
		assert.Equal(t, fromJSON, w, "the transcoder agrees on %#x", c.varint)
	}
}

// A value past its Go type does not wrap: it fails as the JSON decoder
// fails on the same object, naming the field.
func TestAValuePastItsGoTypeIsAContentError(t *testing.T) {
	type narrow struct {
		Metadata struct {
			Generation int32 `json:"generation"`
		} `json:"metadata"`
	}
	in := pb{}.msg(fMetadata, pb{}.varint(fGeneration, 1<<40))
	var n narrow
	err := New(Options{}).Unmarshal(podMessage(t), in, &n)
	require.Error(t, err)
	assert.True(t, IsContentError(err), "%v", err)
	assert.Equal(t, "/metadata/generation", Path(err))
	require.Error(t, json.Unmarshal([]byte(transcoded(t, podMessage(t), in)), &n), "the JSON decoder refuses it too")

	require.NoError(t, New(Options{}).Unmarshal(podMessage(t), pb{}.msg(fMetadata, pb{}.varint(fGeneration, 1<<31-1)), &n))
	assert.Equal(t, int32(1<<31-1), n.Metadata.Generation)
}

// A map entry without its value holds the value's zero, as protobuf
// parsers read it; without its key, the key "".
func TestAMapEntryWithoutValueOrKeyHoldsTheirZero(t *testing.T) {
	in := pb{}.msg(fMetadata, pb{}.msg(fLabels, pb{}.str(1, "k")).msg(fLabels, pb{}.str(2, "v")).
		msg(fAnnotations, pb{}.str(1, "k")))
	for _, sharer := range []*meta.Sharer{nil, meta.NewSharer(meta.ShareMaps)} {
		p, err := decodePod[wirePod](t, New(Options{Sharer: sharer}), in)
		require.NoError(t, err)
		assert.Equal(t, map[string]string{"k": "", "": "v"}, p.Metadata.Labels)
		assert.Equal(t, map[string]label{"k": ""}, p.Metadata.Annotations)
	}
	v, err := decodePod[viaJSONPod](t, New(Options{}), in)
	require.NoError(t, err)
	assert.Equal(t, map[string]selfDecoding{"k": "", "": "v"}, v.Metadata.Labels)
}

// fManagedFields is ObjectMeta's managedFields, fManager a
// ManagedFieldsEntry's manager.
const fManagedFields, fManager = 17, 1

// TestARawReadsMapsAndListsSplitInMetadataBesideManagedFields: meta.Raw
// under SkipManagedFields (an informer's default) first copies metadata
// without managedFields, then decodes that copy. A map or list split by
// other fields is gathered into a buffer of its own; when that was the
// buffer the copy lived in, the copy was overwritten while being read and
// every such object failed as malformed protobuf.
func TestARawReadsMapsAndListsSplitInMetadataBesideManagedFields(t *testing.T) {
	m := podMessage(t)
	managed := pb{}.msg(fManagedFields, pb{}.str(fManager, "kubectl"))
	for _, in := range []pb{
		pb{}.msg(fMetadata, pb{}.str(fName, "a").entry(fLabels, "app", "web").raw(managed...).
			entry(fLabels, "tier", "front").str(fNamespace, "ns")),
		pb{}.msg(fMetadata, pb{}.raw(managed...).entry(fLabels, "app", "web").str(fName, "b").
			entry(fAnnotations, "k", "v").entry(fLabels, "tier", "front").entry(fAnnotations, "k2", "v2")),
		pb{}.msg(fMetadata, pb{}.str(fFinalizers, "f1").raw(managed...).str(fName, "c").str(fFinalizers, "f2")).
			msg(fSpec, pb{}.str(fNodeName, "n")),
	} {
		j := transcoded(t, m, in)
		require.Contains(t, j, `"managedFields"`)
		var fromJSON, fromProto meta.Raw
		require.NoError(t, json.Unmarshal([]byte(j), &fromJSON, meta.SkipManagedFields()))
		d := New(Options{SkipManagedFields: true, Sharer: meta.NewSharer(meta.ShareMaps)})
		require.NoError(t, d.Unmarshal(m, in, &fromProto), "%s", j)
		require.Equal(t, fromJSON, fromProto)
		require.NotContains(t, string(fromProto.Bytes()), "managedFields")
	}
}
