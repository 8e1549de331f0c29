package watchstream

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/zerokube/zerokube/meta"
)

// decoderOptions are the jsontext options of every decoder. Duplicate names
// are allowed (the last one wins), as kube-apiserver's own decoder allows
// them; checking costs time on every object.
var decoderOptions = jsontext.AllowDuplicateNames(true)

// errNotStatus is wrapped when an ERROR event's object is not a Status.
var errNotStatus = errors.New("ERROR event object is not a Status")

// envelope is what one event's `{"type":…,"object":…}` held.
type envelope[P any] struct {
	typ    meta.EventType
	obj    P
	status *meta.Status // the object of an ERROR event
	raw    bool         // the object is in Stream.pending: it came before "type"
	hasObj bool

	// bookmark is a BOOKMARK's object decoded a second time for its
	// annotations: the initial-events-end marker must reach the reflector
	// even when P does not keep annotations (meta.SlimMeta, a user's own).
	bookmark struct {
		Metadata struct {
			Annotations map[string]string `json:"annotations"`
		} `json:"metadata"`
	}
}

// decodeEvent reads one event from dec: the envelope by hand, the object
// straight into a fresh P (or a Status for ERROR). The envelope's members
// may come in either order; when "object" comes first its bytes are kept
// until "type" says what to decode them into.
func (s *Stream[T, P]) decodeEvent(dec *jsontext.Decoder) (Event[P], error) {
	tok, err := dec.ReadToken()
	if err != nil {
		return Event[P]{}, err
	}
	if k := tok.Kind(); k != '{' {
		return Event[P]{}, fmt.Errorf("event is a JSON %v, want an object", k)
	}
	// The envelope lives in the Stream: a local one escapes through the
	// generic method calls below, one allocation per event.
	env := &s.env
	*env = envelope[P]{}
	for dec.PeekKind() != '}' {
		name, err := dec.ReadValue()
		if err != nil {
			return Event[P]{}, err
		}
		switch memberOf(name) {
		case memberType:
			env.typ, err = readType(dec)
		case memberObject:
			err = s.readObject(dec, env)
		case memberOther:
			err = dec.SkipValue()
		}
		if err != nil {
			return Event[P]{}, err
		}
	}
	if _, err := dec.ReadToken(); err != nil {
		return Event[P]{}, err
	}
	ev, err := s.finish(env)
	*env = envelope[P]{} // keep no reference to the object
	return ev, err
}

// finish checks the envelope and turns it into an Event (or, for ERROR, the
// server's error).
func (s *Stream[T, P]) finish(env *envelope[P]) (Event[P], error) {
	switch {
	case env.typ == "":
		return Event[P]{}, errors.New("event has no type")
	case !env.hasObj:
		return Event[P]{}, fmt.Errorf("%s event has no object", env.typ)
	case env.raw:
		if err := s.decodePending(env); err != nil {
			return Event[P]{}, err
		}
	}
	if env.typ == meta.Error {
		return Event[P]{}, fmt.Errorf("watchstream: watch ended by ERROR event %d: %w",
			s.events, &meta.StatusError{Status: *env.status})
	}
	ev := Event[P]{Type: env.typ, Object: env.obj, ResourceVersion: env.obj.GetResourceVersion()}
	if env.typ == meta.Bookmark {
		ev.InitialEventsEnd = env.bookmark.Metadata.Annotations[meta.InitialEventsEndAnnotation] == "true"
	}
	return ev, nil
}

// readObject decodes the "object" member, or keeps its bytes in s.pending
// when the type is not known yet.
func (s *Stream[T, P]) readObject(dec *jsontext.Decoder, env *envelope[P]) error {
	env.hasObj = true
	if dec.PeekKind() == 'n' {
		if _, err := dec.ReadToken(); err != nil {
			return err
		}
		return errors.New("event has a null object")
	}
	if env.typ == "" {
		v, err := dec.ReadValue()
		if err != nil {
			return err
		}
		s.pending = append(s.pending[:0], v...)
		env.raw = true
		return nil
	}
	env.raw = false
	return s.decodeObject(env, dec)
}

// decodePending decodes the object kept in s.pending.
func (s *Stream[T, P]) decodePending(env *envelope[P]) error {
	return s.decodeObject(env, nil)
}

// unmarshal decodes the next value of dec into v, or s.pending when dec is
// nil.
func (s *Stream[T, P]) unmarshal(dec *jsontext.Decoder, v any) error {
	if dec == nil {
		if s.opts.Unmarshal != nil {
			return json.Unmarshal(s.pending, v, decoderOptions, s.opts.Unmarshal)
		}
		return json.Unmarshal(s.pending, v, decoderOptions)
	}
	if s.opts.Unmarshal != nil {
		return json.UnmarshalDecode(dec, v, s.opts.Unmarshal)
	}
	return json.UnmarshalDecode(dec, v)
}

// decodeObject decodes into a Status for ERROR events, else into a new P.
func (s *Stream[T, P]) decodeObject(env *envelope[P], dec *jsontext.Decoder) error {
	if env.typ == meta.Error {
		st := new(meta.Status)
		if err := s.unmarshal(dec, st); err != nil {
			return fmt.Errorf("%w: %w", errNotStatus, err)
		}
		if st.Kind != "Status" && st.Code == 0 && st.Status == "" {
			return fmt.Errorf("%w: it has no kind, code or status", errNotStatus)
		}
		env.status = st
		return nil
	}
	if env.typ == meta.Bookmark && dec != nil {
		// Bookmarks are small and rare: keep the bytes to decode them twice.
		v, err := dec.ReadValue()
		if err != nil {
			return err
		}
		s.pending = append(s.pending[:0], v...)
		dec = nil
	}
	if env.typ == meta.Bookmark {
		if err := s.unmarshal(nil, &env.bookmark); err != nil {
			return fmt.Errorf("%s object does not decode: %w", env.typ, err)
		}
	}
	obj := P(new(T))
	depth := 0
	if dec != nil {
		depth = dec.StackDepth()
	}
	if err := s.unmarshal(dec, obj); err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) {
			// The connection was cut mid-object: nothing is wrong with
			// the object, and saying it "does not decode" sends the
			// reader after the data instead of the network.
			return fmt.Errorf("the stream ended inside the object of an event (%s): %w", env.typ, err)
		}
		err = fmt.Errorf("%s object does not decode into %T: %w", env.typ, obj, err)
		oe := &objectError{key: meta.Key(obj), err: err}
		if dec == nil {
			// The object came before "type" and was decoded alone: its
			// pointer is within the object. Name it within the event, as
			// the decoder does when "type" comes first (kube-apiserver's
			// order) and protobuf does, so that the same corrupt field has
			// the same path whatever the order of the members; and name
			// the object by its metadata if the failure came before it.
			var sem *json.SemanticError
			if errors.As(err, &sem) {
				oe.path = "/object" + string(sem.JSONPointer)
			}
			if obj.GetName() == "" {
				var n itemName
				if json.Unmarshal(s.pending, &n) == nil {
					oe.key = meta.JoinKey(n.Metadata.Namespace, n.Metadata.Name)
				}
			}
		}
		if dec != nil && obj.GetName() == "" && dec.StackDepth() > depth {
			// The failure came before the object's name: read on to it.
			// The stream ends here whatever is read, and the event's size
			// cap still bounds what may be.
			if n, ferr := finishItem(dec, depth); ferr == nil {
				oe.key = meta.JoinKey(n.Metadata.Namespace, n.Metadata.Name)
			}
		}
		if oe.key == "" && oe.path == "" {
			return err
		}
		return oe
	}
	env.obj = obj
	return nil
}

type member uint8

const (
	memberOther member = iota
	memberType
	memberObject
)

// memberOf names an envelope member from its quoted name, without
// allocating in the common, unescaped case.
func memberOf(quoted jsontext.Value) member {
	name := []byte(quoted)
	if bytes.IndexByte(name, '\\') >= 0 {
		name, _ = jsontext.AppendUnquote(nil, name)
	} else if len(name) >= 2 {
		name = name[1 : len(name)-1]
	}
	switch string(name) {
	case "type":
		return memberType
	case "object":
		return memberObject
	}
	return memberOther
}

// readType reads the "type" member's value: one of the five event types.
func readType(dec *jsontext.Decoder) (meta.EventType, error) {
	v, err := dec.ReadValue()
	if err != nil {
		return "", err
	}
	if k := v.Kind(); k != '"' {
		return "", fmt.Errorf("event type is a JSON %v, want a string", k)
	}
	switch string(v) { // no allocation: the compiler compares in place
	case `"ADDED"`:
		return meta.Added, nil
	case `"MODIFIED"`:
		return meta.Modified, nil
	case `"DELETED"`:
		return meta.Deleted, nil
	case `"BOOKMARK"`:
		return meta.Bookmark, nil
	case `"ERROR"`:
		return meta.Error, nil
	}
	u, err := jsontext.AppendUnquote(nil, v)
	if t := meta.EventType(u); err == nil && t.Valid() {
		return t, nil
	}
	return "", fmt.Errorf("unknown event type %s", v)
}
