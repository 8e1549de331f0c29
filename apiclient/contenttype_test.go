package apiclient

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestAcceptHeadersAreExactlyWhatClientGoSends pins every Accept header
// acceptFor makes (issue 38 item 4: the JSON as= clause of a metadata
// request could go and no test noticed; without it a server that cannot
// give protobuf would send whole objects to a metadata-only informer).
// The metadata ones are those client-go's metadata client sends and its
// tests pin (k8s.io/client-go/metadata), the JSON form last as a fallback;
// conformance's partial/list-get-watch sends these same strings to
// kube-apiserver v1.37.2 and reads PartialObjectMetadata(List) back.
func TestAcceptHeadersAreExactlyWhatClientGoSends(t *testing.T) {
	const pb = true
	for _, tc := range []struct {
		name string
		dec  bool
		as   string
		want string
	}{
		{"JSON", false, "", "application/json"},
		{"protobuf", pb, "", "application/vnd.kubernetes.protobuf, application/json"},
		{"metadata list in JSON", false, asMetadataList,
			"application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json"},
		{"metadata watch in JSON", false, asMetadata,
			"application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json"},
		{"metadata list in protobuf", pb, asMetadataList,
			"application/vnd.kubernetes.protobuf;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1," +
				"application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json"},
		{"metadata watch in protobuf", pb, asMetadata,
			"application/vnd.kubernetes.protobuf;as=PartialObjectMetadata;g=meta.k8s.io;v=v1," +
				"application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, acceptFor(tc.dec, tc.as))
		})
	}
	require.Equal(t, "", as(false, asMetadataList), "not a metadata request: no as=")
	require.Equal(t, asMetadata, as(true, asMetadata))
}
