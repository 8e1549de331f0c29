package main

import "github.com/zerokube/zerokube/meta"

// Pod is the slim pod the demo caches: the metadata (which every handler
// line needs for its key) plus the two fields a reader might want to print.
// Everything else in the server's JSON is skipped while decoding, so the
// cache pays only for these fields; see the README for the same idea in an
// embedding program.
type Pod struct {
	meta.TypeMeta
	meta.ObjectMeta `json:"metadata"`
	Spec            struct {
		NodeName string `json:"nodeName,omitempty"`
	} `json:"spec"`
	Status struct {
		Phase string `json:"phase,omitempty"`
	} `json:"status"`
}
