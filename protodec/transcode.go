package protodec

import (
	"errors"

	"github.com/zerokube/zerokube/kubeproto"
)

// appendJSON appends the JSON form of message b. TEMPORARY until
// kubeproto's transcoder lands.
func appendJSON(dst []byte, m kubeproto.Message, b []byte) ([]byte, error) {
	return dst, errors.New("protodec: no transcoder yet for " + m.Name())
}
