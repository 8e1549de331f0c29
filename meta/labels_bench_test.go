package meta_test

import (
	"testing"

	"github.com/zerokube/zerokube/meta"
)

// BenchmarkLabelSelector is the selector work a lister does per cached
// object: Matches against a pod's labels, for the selector shapes
// controllers use. Matching must not allocate; parsing happens once per
// selector, so its cost is reported beside it for scale.
func BenchmarkLabelSelector(b *testing.B) {
	labels := map[string]string{
		"app": "checkout", "pod-template-hash": "7d9f8c6b5", "tier": "backend",
		"version": "v2", "team": "payments",
	}
	for _, tc := range []struct {
		name, sel string
		match     bool
	}{
		{"equality", "app=checkout", true},
		{"equality-miss", "app=cart", false},
		{"set", "tier in (frontend,backend),version notin (v1)", true},
		{"exists", "app,!canary", true},
		{"matchLabels-3", "app=checkout,tier=backend,team=payments", true},
	} {
		sel, err := meta.ParseLabelSelector(tc.sel)
		if err != nil {
			b.Fatal(err)
		}
		b.Run("match/"+tc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if sel.Matches(labels) != tc.match {
					b.Fatalf("%q.Matches = %v", tc.sel, !tc.match)
				}
			}
		})
		b.Run("parse/"+tc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := meta.ParseLabelSelector(tc.sel); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
