package world

import (
	"context"
	"time"
)

// Directory is the shard's shared record of hosting: which zone ids are
// hosted, by which owner, under which lease, and which templates have
// copies running (template-in-use claims). It holds records, never zone
// actors: the world keeps its own table of the zones it runs and consults
// the directory to host, renew and unhost them. NewLocalDirectory is the
// implementation for one process; one over Redis or etcd, shared by several
// processes, must keep the same rules, and dirtest.Run checks them against
// any implementation:
//
//   - A zone id is hosted at most once at a time: Host of a live id fails
//     with ErrHosted.
//   - A leased hosting gets a generation (a fencing token) greater than any
//     generation that id had before, including before a restart. The store
//     refuses saves written under a generation that was released or
//     superseded.
//   - A lease lapses if not renewed within its TTL: Lookup no longer finds
//     it, Renew fails with ErrLeaseLost, and Host may take the id again
//     with a higher generation.
//   - Renew and Unhost act only on the exact lease they are given (id,
//     generation, owner); a superseded or released one gets ErrLeaseLost.
//   - An unleased hosting (an instance: unleased by construction, so that
//     player-driven ids never become permanent records) has generation 0
//     and no TTL; it lives until Unhost and leaves nothing behind.
//   - A claim says an owner runs copies of a template. It lapses after its
//     TTL unless claimed again, carries no generation and fences nothing;
//     Claims counts the owners whose claim is live.
//
// Every method is safe for concurrent use, and none calls back into the
// world: the local implementation's lock is a leaf.
type Directory interface {
	// Host records h as hosted and, unless h is unleased, grants it a
	// lease.
	Host(ctx context.Context, h Hosting) (Lease, error)
	// Renew extends a lease by the directory's TTL and returns it renewed.
	// Renewing an unleased hosting that is still hosted changes nothing.
	Renew(ctx context.Context, l Lease) (Lease, error)
	// Unhost releases a lease, or forgets an unleased hosting. A holder
	// may release its own lease after it lapsed, as long as no one took
	// the id since.
	Unhost(ctx context.Context, l Lease) error
	// Lookup returns the live hosting of id, or ErrNotHosted.
	Lookup(ctx context.Context, id string) (Lease, error)
	// List returns the live hostings of a template (the template zone
	// itself and its copies), sorted by id.
	List(ctx context.Context, template string) ([]Lease, error)
	// Claim records, or renews, owner's claim on template for ttl.
	Claim(ctx context.Context, template, owner string, ttl time.Duration) error
	// Unclaim drops owner's claim on template, if any.
	Unclaim(ctx context.Context, template, owner string) error
	// Claims counts the live claims on template.
	Claims(ctx context.Context, template string) (int, error)
}

// Hosting asks for a zone to be hosted.
type Hosting struct {
	ID       string // which zone actor: a template id, or <template>#<hex> for a copy
	Template string // whose content it runs
	Owner    string // which process hosts it
	// Unleased hosts without a lease: no generation, no TTL. Instances
	// are hosted so; permanent zones never are.
	Unleased bool
}

// Lease is a hosting as granted, renewed or looked up.
type Lease struct {
	Hosting
	// Gen is the lease generation; 0 for an unleased hosting.
	Gen uint64
	// Expires is when the lease lapses unless renewed; zero for an
	// unleased hosting.
	Expires time.Time
}
