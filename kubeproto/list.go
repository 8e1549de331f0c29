package kubeproto

import "fmt"

// ListMeta is a metav1.ListMeta, the field 1 of every built-in list.
//
//	message ListMeta { string selfLink = 1; string resourceVersion = 2;
//	                   string continue = 3; int64 remainingItemCount = 4;
//	                   ShardInfo shardInfo = 5; }
//	message ShardInfo { string selector = 1; }
type ListMeta struct {
	SelfLink           string
	ResourceVersion    string
	Continue           string
	RemainingItemCount *int64
	ShardSelector      string // shardInfo.selector; HasShardInfo tells an empty one from none
	HasShardInfo       bool
}

// DecodeList walks a list message (an Envelope's Raw for a kind such as
// PodList: field 1 ListMeta, field 2 the items) and calls item for each
// item's message, in order, with its index. item's bytes alias raw. An
// error from item stops the walk and is returned as is.
func DecodeList(raw []byte, item func(i int, msg []byte) error) (ListMeta, error) {
	var lm ListMeta
	n := 0
	for off := 0; off < len(raw); {
		num, typ, val, _, l, err := next(raw[off:])
		if err != nil {
			return lm, errAt("list", off, err, "")
		}
		if num <= 2 && typ != wireBytes {
			return lm, errAt("list", off, ErrMalformed, fmt.Sprintf("field %d is not length-delimited", num))
		}
		switch num {
		case 1:
			if derr := decodeListMeta(val, &lm); derr != nil {
				return lm, derr.prefix("metadata", off+l-len(val))
			}
		case 2:
			if err := item(n, val); err != nil {
				return lm, err
			}
			n++
		}
		off += l
	}
	return lm, nil
}

func decodeListMeta(b []byte, lm *ListMeta) *DecodeError {
	for off := 0; off < len(b); {
		num, typ, val, x, n, err := next(b[off:])
		if err != nil {
			return errAt("list", off, err, "")
		}
		want := wireBytes
		if num == 4 {
			want = wireVarint
		}
		if num <= 5 && typ != want {
			return errAt("list", off, ErrMalformed, fmt.Sprintf("field %d has wire type %d", num, typ))
		}
		switch num {
		case 1:
			lm.SelfLink = string(val)
		case 2:
			lm.ResourceVersion = string(val)
		case 3:
			lm.Continue = string(val)
		case 4:
			v := int64(x)
			lm.RemainingItemCount = &v
		case 5:
			lm.HasShardInfo = true
			for o := 0; o < len(val); {
				sn, st, sv, _, k, err := next(val[o:])
				if err != nil {
					return errAt("list", off+n-len(val)+o, err, "shardInfo")
				}
				if sn == 1 && st == wireBytes {
					lm.ShardSelector = string(sv)
				}
				o += k
			}
		}
		off += n
	}
	return nil
}

// AppendListMeta appends lm as a list's field 1 (tag, length and message),
// as kube-apiserver writes it.
func AppendListMeta(dst []byte, lm ListMeta) []byte {
	dst, start := beginLen(dst, 1)
	dst = appendStringField(dst, 1, lm.SelfLink)
	dst = appendStringField(dst, 2, lm.ResourceVersion)
	dst = appendStringField(dst, 3, lm.Continue)
	if lm.RemainingItemCount != nil {
		dst = appendTag(dst, 4, wireVarint)
		dst = appendVarint(dst, uint64(*lm.RemainingItemCount))
	}
	if lm.HasShardInfo {
		var s int
		dst, s = beginLen(dst, 5)
		dst = appendStringField(dst, 1, lm.ShardSelector)
		dst = endLen(dst, s)
	}
	return endLen(dst, start)
}

// AppendListItem appends one item's message as a list's field 2. A list is
// AppendListMeta followed by AppendListItem for each item; wrap it with
// AppendEnvelope (apiVersion and e.g. kind "PodList").
func AppendListItem(dst, msg []byte) []byte { return appendBytesField(dst, 2, msg) }
