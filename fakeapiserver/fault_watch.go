package fakeapiserver

import "github.com/zerokube/zerokube/fakeapiserver/internal/storage"

// CutStreamingLists arms the next n streaming lists (watches with
// sendInitialEvents=true; Forever: every one, until ClearFaults) to end
// cleanly after half of their initial events, before the initial-events-end
// bookmark: what a client sees when the API server restarts mid-stream or
// ends the watch at its timeout. The client has an incomplete list and no
// resourceVersion to watch from.
func (s *Server) CutStreamingLists(n int) {
	s.faults.mu.Lock()
	s.faults.cutStreams = n
	s.faults.mu.Unlock()
}

// cutStreamingList keeps the first half of st's initial events and marks
// the stream to end after them.
func (s *Server) cutStreamingList(st *storage.WatchStart) {
	st.Initial = st.Initial[:len(st.Initial)/2]
	st.InitialEnd, st.Replay, st.EndEarly = nil, nil, true
	s.record(FaultCutStreamingList, "sent", len(st.Initial))
}
