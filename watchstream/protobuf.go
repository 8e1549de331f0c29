package watchstream

import (
	"errors"
	"fmt"
	"io"

	"github.com/zerokube/zerokube/kubeproto"
	"github.com/zerokube/zerokube/meta"
	"github.com/zerokube/zerokube/protodec"
)

// A protobuf watch (Content-Type application/vnd.kubernetes.protobuf;
// stream=watch) is a sequence of frames: a 4-byte big-endian length, then
// a metav1.WatchEvent {1 type, 2 object}, whose object is a RawExtension
// holding the object in its `k8s\x00` envelope. Over a websocket each
// binary message is one WatchEvent, without the length (kube-apiserver's
// watch handler writes each event to the websocket as it writes it to the
// framer of a chunked body).

// errNoProtobufDecoder reports protobuf events on a stream that was given
// no decoder for them.
var errNoProtobufDecoder = errors.New("protobuf events, but Options.Protobuf is nil")

// nextFrame decodes the next length-prefixed frame of a chunked body.
func (s *Stream[T, P]) nextFrame() (Event[P], error) {
	if s.frames == nil {
		if err := s.initChunked(); err != nil {
			return Event[P]{}, err
		}
		s.frames = kubeproto.NewFrameReader(s.lim, int(s.max))
	}
	s.lim.allow(s.max + 4)
	s.events++
	start := s.frameOff
	b, err := s.frames.Next()
	if err == io.EOF {
		s.events--
		return Event[P]{}, io.EOF
	}
	if err != nil {
		if errors.Is(err, kubeproto.ErrTooLarge) {
			err = fmt.Errorf("%w: %w", err, ErrTooLarge)
		}
		return Event[P]{}, s.wrap(start, err)
	}
	s.frameOff += 4 + int64(len(b))
	ev, err := s.decodeProtoEvent(b)
	if err != nil {
		return Event[P]{}, s.wrap(start, err)
	}
	return ev, nil
}

// decodeProtoEvent decodes one WatchEvent message.
func (s *Stream[T, P]) decodeProtoEvent(b []byte) (Event[P], error) {
	d := s.opts.Protobuf
	if d == nil {
		return Event[P]{}, errNoProtobufDecoder
	}
	we, err := kubeproto.DecodeWatchEvent(b)
	if err != nil {
		return Event[P]{}, err
	}
	typ := meta.EventType(we.Type)
	if !typ.Valid() {
		return Event[P]{}, fmt.Errorf("unknown event type %q", we.Type)
	}
	if len(we.Object) == 0 {
		return Event[P]{}, fmt.Errorf("%s event has no object", typ)
	}
	env, err := kubeproto.DecodeEnvelope(we.Object)
	if err != nil {
		return Event[P]{}, err
	}
	m, ok := kubeproto.MessageFor(env.APIVersion, env.Kind)
	if !ok {
		// Decoding by metadata alone would hand the caller an object with
		// its spec and status silently empty, which the informer would
		// cache as if whole. client-go's protobuf serializer fails on an
		// unregistered kind too; asking for JSON decodes it.
		return Event[P]{}, fmt.Errorf("%s event's object is %s %s: %w", typ, env.APIVersion, env.Kind, kubeproto.ErrUnknownKind)
	}
	switch typ {
	case meta.Error:
		if env.Kind != "Status" {
			// The envelope names the kind: any other message would decode
			// into an empty Status by its field names, and the watch would
			// end as if the server had failed. The JSON path refuses an
			// ERROR object that is not a Status too.
			return Event[P]{}, fmt.Errorf("%w: it is a %s %s", errNotStatus, env.APIVersion, env.Kind)
		}
		st := new(meta.Status)
		if err := d.Unmarshal(m, env.Raw, st); err != nil {
			return Event[P]{}, fmt.Errorf("%w: %w", errNotStatus, err)
		}
		return Event[P]{}, fmt.Errorf("watchstream: watch ended by ERROR event %d: %w", s.events, &meta.StatusError{Status: *st})
	case meta.Bookmark:
		s.env.bookmark.Metadata.Annotations = nil
		if err := d.Unmarshal(m, env.Raw, &s.env.bookmark); err != nil {
			return Event[P]{}, fmt.Errorf("%s object does not decode: %w", typ, err)
		}
	}
	obj := P(new(T))
	if err := d.UnmarshalTyped(m, env.APIVersion, env.Kind, env.Raw, obj); err != nil {
		oe := &objectError{err: fmt.Errorf("%s object does not decode into %T: %w", typ, obj, err)}
		if protodec.IsContentError(err) {
			oe.path = "/object" + protodec.Path(err) // as the JSON decoder names it in the event
		}
		var n struct {
			meta.SlimMeta `json:"metadata"`
		}
		// What decodes of its metadata names it: the value that did not
		// fit may be in the metadata too, after its name (field 1).
		_ = d.Unmarshal(m, env.Raw, &n)
		if n.Name != "" {
			oe.key = meta.Key(&n)
		}
		return Event[P]{}, oe
	}
	ev := Event[P]{Type: typ, Object: obj, ResourceVersion: obj.GetResourceVersion()}
	if typ == meta.Bookmark {
		ev.InitialEventsEnd = s.env.bookmark.Metadata.Annotations[meta.InitialEventsEndAnnotation] == "true"
	}
	return ev, nil
}

// decodeBinaryMessage decodes a websocket binary message: one WatchEvent.
func (s *Stream[T, P]) decodeBinaryMessage(r io.Reader) (Event[P], error) {
	s.events++
	b, err := io.ReadAll(io.LimitReader(r, s.max+1))
	if err == nil && int64(len(b)) > s.max {
		err = s.tooLarge()
	}
	if err == nil {
		var ev Event[P]
		if ev, err = s.decodeProtoEvent(b); err == nil {
			return ev, nil
		}
	}
	return Event[P]{}, s.wrap(0, err)
}
