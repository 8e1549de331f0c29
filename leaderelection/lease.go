package leaderelection

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/zerokube/zerokube/apiclient"
	"github.com/zerokube/zerokube/meta"
)

// Lease is a coordination.k8s.io/v1 Lease with the fields zerokube reads
// and writes. Its metadata is kept whole, so that an update round-trips
// the labels and annotations others put on the object.
type Lease struct {
	meta.TypeMeta
	meta.ObjectMeta `json:"metadata"`
	Spec            LeaseSpec `json:"spec"`
}

// LeaseSpec is the Lease's spec. Every field is optional on the wire.
type LeaseSpec struct {
	HolderIdentity       *string    `json:"holderIdentity,omitempty"`
	LeaseDurationSeconds *int32     `json:"leaseDurationSeconds,omitempty"`
	AcquireTime          *MicroTime `json:"acquireTime,omitempty"`
	RenewTime            *MicroTime `json:"renewTime,omitempty"`
	LeaseTransitions     *int32     `json:"leaseTransitions,omitempty"`
	// Strategy and PreferredHolder belong to coordinated leader election,
	// which zerokube does not do; they are carried so that an update does
	// not erase them.
	Strategy        *string `json:"strategy,omitempty"`
	PreferredHolder *string `json:"preferredHolder,omitempty"`
}

// MicroTime is metav1.MicroTime's wire form: RFC 3339 in UTC with
// microseconds.
type MicroTime struct{ time.Time }

const microLayout = "2006-01-02T15:04:05.000000Z07:00"

// MarshalJSON writes t in UTC with microseconds.
func (t MicroTime) MarshalJSON() ([]byte, error) {
	return []byte(`"` + t.UTC().Format(microLayout) + `"`), nil
}

// UnmarshalJSON reads any RFC 3339 time; null or "" leave t zero.
func (t *MicroTime) UnmarshalJSON(b []byte) error {
	s := strings.Trim(string(b), `"`)
	if s == "null" || s == "" {
		return nil
	}
	v, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return fmt.Errorf("leaderelection: lease time %q: %w", s, err)
	}
	t.Time = v
	return nil
}

// LeasesGVR is the resource both leader election and Membership write.
var LeasesGVR = meta.GVR{Group: "coordination.k8s.io", Version: "v1", Resource: "leases"}

// record is the part of a Lease that says who holds it: what a candidate
// compares to tell that the holder renewed (client-go compares the same
// fields, serialized as its LeaderElectionRecord).
type record struct {
	holder       string
	durationSecs int32
	acquire      time.Time
	renew        time.Time
	transitions  int32
}

func recordOf(l *Lease) record {
	s, r := l.Spec, record{}
	if s.HolderIdentity != nil {
		r.holder = *s.HolderIdentity
	}
	if s.LeaseDurationSeconds != nil {
		r.durationSecs = *s.LeaseDurationSeconds
	}
	if s.AcquireTime != nil {
		r.acquire = s.AcquireTime.Time
	}
	if s.RenewTime != nil {
		r.renew = s.RenewTime.Time
	}
	if s.LeaseTransitions != nil {
		r.transitions = *s.LeaseTransitions
	}
	return r
}

func (r record) equal(o record) bool {
	return r.holder == o.holder && r.durationSecs == o.durationSecs && r.transitions == o.transitions &&
		r.acquire.Equal(o.acquire) && r.renew.Equal(o.renew)
}

func (r record) duration() time.Duration { return time.Duration(r.durationSecs) * time.Second }

// writeTo sets l's spec to r, keeping the fields r does not know. Times
// are truncated to the microseconds the wire keeps, so that what was
// written compares equal to what is read back.
func (r record) writeTo(l *Lease) {
	holder, secs, transitions := r.holder, r.durationSecs, r.transitions
	l.Spec.HolderIdentity, l.Spec.LeaseDurationSeconds, l.Spec.LeaseTransitions = &holder, &secs, &transitions
	l.Spec.AcquireTime = &MicroTime{r.acquire.Truncate(time.Microsecond)}
	l.Spec.RenewTime = &MicroTime{r.renew.Truncate(time.Microsecond)}
}

// sighting is a record and when this candidate first saw it: the start of
// the holder's lease by this candidate's clock.
type sighting struct {
	rec record
	at  time.Time
}

// update is s after reading r at now: the same sighting when r has not
// changed, a new one from now when it has.
func (s sighting) update(r record, now time.Time) sighting {
	if s.at.IsZero() || !r.equal(s.rec) {
		return sighting{rec: r, at: now}
	}
	return s
}

// expiry is when the holder's lease ends unless it changes again.
func (s sighting) expiry() time.Time { return s.at.Add(s.rec.duration()) }

// leases is the one Lease client of the package: leader election and
// Membership both read and write through it.
type leases struct {
	client *apiclient.Client
	ref    apiclient.Ref
}

func newLeases(c *apiclient.Client, namespace string) leases {
	return leases{client: c, ref: apiclient.Ref{GVR: LeasesGVR, Namespace: namespace}}
}

func (ls leases) where(name string) string { return ls.ref.Namespace + "/" + name }

func (ls leases) get(ctx context.Context, name string) (*Lease, error) {
	l, err := apiclient.Get[Lease](ctx, ls.client, ls.ref, name)
	if err != nil {
		return nil, fmt.Errorf("leaderelection: reading lease %s: %w", ls.where(name), err)
	}
	return l, nil
}

// create writes a new Lease; a name that is taken is meta.IsAlreadyExists.
func (ls leases) create(ctx context.Context, l *Lease) (*Lease, error) {
	l.TypeMeta = meta.TypeMeta{Kind: "Lease", APIVersion: "coordination.k8s.io/v1"}
	l.Namespace = ls.ref.Namespace
	out, err := apiclient.Create[Lease](ctx, ls.client, ls.ref, l)
	if err != nil {
		return nil, fmt.Errorf("leaderelection: creating lease %s: %w", ls.where(l.Name), err)
	}
	return out, nil
}

// update replaces l, whose resourceVersion the server checks: a Lease
// written by someone else since l was read is meta.IsConflict (409), the
// optimistic concurrency that lets one candidate only win a race.
func (ls leases) update(ctx context.Context, l *Lease) (*Lease, error) {
	out, err := apiclient.Update[Lease](ctx, ls.client, ls.ref, l)
	if err != nil {
		return nil, fmt.Errorf("leaderelection: updating lease %s at resourceVersion %s: %w",
			ls.where(l.Name), l.ResourceVersion, err)
	}
	return out, nil
}

func (ls leases) delete(ctx context.Context, name string) error {
	if err := ls.client.Delete(ctx, ls.ref, name, apiclient.DeleteOptions{}); err != nil {
		return fmt.Errorf("leaderelection: deleting lease %s: %w", ls.where(name), err)
	}
	return nil
}

// list calls each for every Lease with the label selector.
func (ls leases) list(ctx context.Context, selector string, each func(*Lease) error) error {
	_, err := apiclient.ListAll[Lease](ctx, ls.client, ls.ref, apiclient.ListOptions{LabelSelector: selector}, nil, each)
	if err != nil {
		return fmt.Errorf("leaderelection: listing leases %s in %s: %w", selector, ls.ref.Namespace, err)
	}
	return nil
}
