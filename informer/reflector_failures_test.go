package informer

import (
	"errors"
	"fmt"
	"testing"

	"github.com/go-json-experiment/json"
	"github.com/stretchr/testify/require"

	"github.com/zerokube/zerokube/apiclient"
	"github.com/zerokube/zerokube/watchstream"
)

func TestUnreadableRepliesAreNotCalledUnreachable(t *testing.T) {
	var v struct{ A int }
	semantic := json.Unmarshal([]byte(`{"A":"x"}`), &v)
	syntactic := json.Unmarshal([]byte(`{"A":`), &v)
	require.Error(t, semantic)
	require.Error(t, syntactic)
	for name, err := range map[string]error{
		"truncated JSON":        syntactic,
		"bad watch frame":       &watchstream.DecodeError{Event: 3, Offset: 17, Err: errors.New("garbage")},
		"list item too large":   fmt.Errorf("list: %w", apiclient.ErrObjectTooLarge),
		"watch event too large": fmt.Errorf("watch: %w", watchstream.ErrEventTooLarge),
	} {
		require.Equal(t, FailureOther, classify(fmt.Errorf("informer: list: %w", err), 0), name)
	}
	require.Equal(t, FailureUnreachable, classify(errors.New("dial tcp: connection refused"), 0))
	for name, err := range map[string]error{
		"object does not fit the type": semantic,
		"list item":                    &apiclient.ItemError{Name: "a", Err: semantic},
		"watch event":                  &watchstream.DecodeError{Event: 3, Object: "ns/a", Err: semantic},
	} {
		require.Equal(t, FailureUndecodable, classify(fmt.Errorf("informer: list: %w", err), 0), name)
	}
}
