package testutil

import (
	"errors"
	"fmt"
	"strings"

	"github.com/go-json-experiment/json"
)

// PinnedImage is a validating type, as users write them: an image
// reference that must name a version, so "nginx:latest" does not fit it.
// Any server stores such a pod; only the user's type refuses it, which is
// what the tests of Options.Decode.SkipUndecodable need on every wire (JSON and
// protobuf alike: protodec decodes a type with its own UnmarshalJSON
// through the value's JSON form).
type PinnedImage string

// ErrUnpinned is what PinnedImage's UnmarshalJSON wraps for an image
// without a pinned version.
var ErrUnpinned = errors.New("image is not pinned to a version")

// UnmarshalJSON accepts an image with a version other than "latest".
func (p *PinnedImage) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	if !strings.Contains(s, ":") || strings.HasSuffix(s, ":latest") {
		return fmt.Errorf("%q: %w", s, ErrUnpinned)
	}
	*p = PinnedImage(s)
	return nil
}
