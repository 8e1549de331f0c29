package fakeapiserver

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestWantsTableReadsTheFirstServableMediaType(t *testing.T) {
	for accept, want := range map[string]bool{
		"application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json": true,
		"application/json": false,
		"":                 false,
		"application/vnd.kubernetes.protobuf,application/json;as=Table;v=v1;g=meta.k8s.io": true,
		"application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json":               false,
		"application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io":                 false,
		"application/json, application/json;as=Table;v=v1;g=meta.k8s.io":                   false,
	} {
		require.Equal(t, want, wantsTable(accept), accept)
	}
}

func TestHumanDurationMatchesKubectlsAgeColumn(t *testing.T) {
	for d, want := range map[time.Duration]string{
		-5 * time.Second:                  "<invalid>",
		-time.Second:                      "0s",
		119 * time.Second:                 "119s",
		2 * time.Minute:                   "2m",
		5*time.Minute + 3*time.Second:     "5m3s",
		42 * time.Minute:                  "42m",
		3*time.Hour + 5*time.Minute:       "3h5m",
		20 * time.Hour:                    "20h",
		50 * time.Hour:                    "2d2h",
		30 * 24 * time.Hour:               "30d",
		3*365*24*time.Hour + 24*time.Hour: "3y1d",
		9 * 365 * 24 * time.Hour:          "9y",
	} {
		require.Equal(t, want, humanDuration(d), d.String())
	}
}

func FuzzWantsTable(f *testing.F) {
	f.Add("application/json;as=Table;v=v1;g=meta.k8s.io,application/json")
	f.Add(";;=,,a/b;x")
	f.Fuzz(func(t *testing.T, accept string) {
		if wantsTable(accept) && wantsTable("application/json,"+accept) {
			t.Fatalf("a plain JSON first must win over %q", accept)
		}
	})
}
