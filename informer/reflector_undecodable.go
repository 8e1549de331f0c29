package informer

import (
	"github.com/zerokube/zerokube/informer/observe"
	"github.com/zerokube/zerokube/watchstream"
)

// UndecodableObject is an object the server holds that does not fit the
// informer's type (in JSON or protobuf), skipped under
// Options.Decode.SkipUndecodable.
type UndecodableObject struct {
	// Key is "namespace/name", as far as it decoded ("" when not).
	Key string
	// Page is the 1-based LIST page it came in; Item its index there.
	Page, Item int
	// Path is the JSON pointer of the value that did not fit, e.g.
	// "/spec/ports/0/port": the same over protobuf as over JSON.
	Path string
	// Err is the decoder's error.
	Err error
}

// fromDecodeError turns the report of a skipped list item into an
// UndecodableObject.
func fromDecodeError(e *watchstream.DecodeError) UndecodableObject {
	return UndecodableObject{Key: e.Object, Item: e.Item, Path: e.Path, Err: e.Err}
}

// skipUndecodable reports one object a list skipped: log, metric, trace,
// and the list of them the last list found (Informer.Undecodable).
func (r *reflector[P]) skipUndecodable(s *listing[P], u UndecodableObject) {
	u.Page = s.page + 1
	s.skipped = append(s.skipped, u)
	r.cfg.obs.emit(observe.Event{Stage: observe.StageSkipped, Key: u.Key, Page: u.Page, Err: u.Err})
}

// undecodable returns the objects the last complete list skipped.
func (r *reflector[P]) undecodable() []UndecodableObject { return r.rec.undecodable() }
