package shard

// FNV-1a 64 constants (see hash/fnv): the offset basis and the prime.
const (
	offset64 = 14695981039346656037
	prime64  = 1099511628211
)

// Hash is the 64-bit FNV-1a hash of s's bytes: the value kube-apiserver
// compares with a shard's ranges. It equals hash/fnv.New64a over []byte(s),
// without the allocation of a hash.Hash and a byte slice per object.
func Hash(s string) uint64 {
	h := uint64(offset64)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= prime64
	}
	return h
}
