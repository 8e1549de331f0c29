package leaderelection

import (
	"testing"
	"time"

	"github.com/go-json-experiment/json"
)

// FuzzLeaseDecode feeds Lease bodies a server (or something pretending to
// be one) may send to the decoder both Elector and Membership read with:
// it must never panic, and what it accepts must round-trip through the
// record the candidates compare.
func FuzzLeaseDecode(f *testing.F) {
	for _, s := range []string{
		`{"metadata":{"name":"l","resourceVersion":"7"},"spec":{"holderIdentity":"a","leaseDurationSeconds":15,"acquireTime":"2026-12-03T12:00:00.000000Z","renewTime":"2026-12-03T12:00:02.123456Z","leaseTransitions":3}}`,
		`{"spec":{"renewTime":"2026-12-03T12:00:02+01:00"}}`,
		`{"spec":{"renewTime":null,"holderIdentity":null}}`,
		`{"spec":{"renewTime":"yesterday"}}`,
		`{"spec":{"renewTime":7}}`,
		`{"spec":{"leaseDurationSeconds":-1}}`,
		`{"spec":{"leaseDurationSeconds":99999999999}}`,
		`{"spec":{"holderIdentity":""}}`,
		`{"spec":[]}`, `{}`, `null`, ``, `{"spec":{"renewTime":"`, "{\"spec\":{\"holderIdentity\":\"\xff\"}}",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var l Lease
		if json.Unmarshal(b, &l) != nil {
			return
		}
		r := recordOf(&l)
		var out Lease
		r.writeTo(&out)
		back := recordOf(&out)
		if back.holder != r.holder || back.durationSecs != r.durationSecs || back.transitions != r.transitions {
			t.Fatalf("record changed in a round trip: %+v then %+v", r, back)
		}
		if !r.renew.Truncate(time.Microsecond).Equal(back.renew) {
			t.Fatalf("renewTime %s read back as %s", r.renew, back.renew)
		}
		enc, err := json.Marshal(&out)
		if err != nil {
			t.Fatalf("encoding %+v: %v", out, err)
		}
		var again Lease
		if err := json.Unmarshal(enc, &again); err != nil {
			t.Fatalf("what was written does not read back: %s: %v", enc, err)
		}
	})
}
