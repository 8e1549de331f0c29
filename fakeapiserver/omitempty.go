package fakeapiserver

import "github.com/zerokube/zerokube/kubeproto"

// dropEmpty removes from m, a written object of a built-in kind, every
// empty list and map whose Go field is omitempty, at any depth:
// kube-apiserver decodes a write into the kind's Go type and encodes it
// again, which leaves them out ("finalizers": [] and "labels": {} in
// metadata, a container's "args": [], a config map's "data": {}; observed
// on v1.37.2). An empty struct stays ({} is what its Go value encodes
// to), and so does an empty list whose field is not omitempty (a pod's
// containers). A custom resource is stored as written: it has no Go type.
func dropEmpty(res *Resource, m object) {
	if msg, ok := kubeproto.MessageFor(res.APIVersion(), res.Kind); ok {
		dropEmptyIn(msg, m)
	}
}

func dropEmptyIn(msg kubeproto.Message, obj map[string]any) {
	for name, v := range obj {
		f, ok := msg.FieldByJSON(name)
		if !ok {
			continue
		}
		sub := f.Message()
		list := f.Repeated() || sub.Valid() && sub.Special() == kubeproto.SpecialStringArray
		switch x := v.(type) {
		case []any:
			if len(x) == 0 && f.OmitEmpty() && list {
				delete(obj, name)
				continue
			}
			if !sub.Valid() || sub.Special() != 0 {
				continue
			}
			for _, e := range x {
				if em, ok := e.(map[string]any); ok {
					dropEmptyIn(sub, em)
				}
			}
		case map[string]any:
			switch {
			case f.Map():
				if len(x) == 0 && f.OmitEmpty() {
					delete(obj, name)
				}
			case sub.Valid() && sub.Special() == 0:
				dropEmptyIn(sub, x)
			}
		}
	}
}
