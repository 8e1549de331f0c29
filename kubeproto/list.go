package kubeproto

// ListMeta is a metav1.ListMeta, the field 1 of every built-in list, as
// AppendListMeta writes it (tests build protobuf lists with it). Lists are
// read by protodec into the caller's meta.ListMeta, item by item from the
// stream (apiclient), or transcoded by AppendJSON; not into this type.
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
