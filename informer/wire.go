package informer

import (
	"errors"
	"sync/atomic"

	"github.com/zerokube/zerokube/apiclient"
	"github.com/zerokube/zerokube/kubeproto"
	"github.com/zerokube/zerokube/protodec"
	"github.com/zerokube/zerokube/watchstream"
)

// wire chooses, per resource, what a resource ListerWatcher asks the
// server for. kube-apiserver serves the built-in kinds in protobuf, which
// costs it about a fifth of the CPU of JSON (PROTOCOL.md), and custom
// resources only in JSON. So:
//
//  1. A resource whose group/version is in kubeproto's table is asked for
//     protobuf with JSON as the fallback (apiclient.AcceptProtobuf), and
//     each reply is decoded by its Content-Type: a server without protobuf
//     answers JSON and nothing breaks.
//  2. Any other resource (a custom resource, an aggregated API) is asked
//     for JSON only, as is every resource under Transport.JSON.
//  3. A protobuf reply whose kind the table lacks (a server newer than the
//     table) fails that one list or watch with kubeproto.ErrUnknownKind;
//     the resource then asks for JSON for good, so the reflector's retry
//     succeeds.
//
// One wire per informer: its decoder caches the decode plan of the
// informer's type, and no state is shared between informers.
type wire struct {
	dec      *protodec.Decoder // nil: JSON only
	jsonOnly atomic.Bool       // set by rule 3
}

func newWire(ref apiclient.Ref, tr Transport, o protodec.Options, metadata bool) *wire {
	w := &wire{}
	// PartialObjectMetadata is a built-in kind whatever the resource: a
	// custom resource's metadata comes in protobuf too.
	if !tr.JSON && (builtIn(ref) || metadata) {
		w.dec = protodec.New(o)
	}
	return w
}

// builtIn reports whether ref's group/version has kinds in kubeproto's table.
func builtIn(ref apiclient.Ref) bool {
	gv := ref.GVR.Version
	if ref.GVR.Group != "" {
		gv = ref.GVR.Group + "/" + gv
	}
	found := false
	for apiVersion := range kubeproto.Kinds {
		if apiVersion == gv {
			found = true
			break
		}
	}
	return found
}

// decoder is what the next request decodes protobuf with; nil: ask for JSON.
func (w *wire) decoder() *protodec.Decoder {
	if w == nil || w.dec == nil || w.jsonOnly.Load() {
		return nil
	}
	return w.dec
}

// observe applies rule 3 to the error of a list or watch.
func (w *wire) observe(err error) {
	if w != nil && err != nil && errors.Is(err, kubeproto.ErrUnknownKind) {
		w.jsonOnly.Store(true)
	}
}

// protoWatch is a Watch whose errors the wire observes.
type protoWatch[P any] struct {
	Watch[P]
	w *wire
}

func (p protoWatch[P]) Next() (watchstream.Event[P], error) {
	ev, err := p.Watch.Next()
	p.w.observe(err)
	return ev, err
}
