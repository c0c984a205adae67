package zone

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"zonemud/content"
	"zonemud/internal/mail"
	"zonemud/internal/markup"
)

// In-package fakes of the roles a zone's host plays (host.go), so a zone
// rule is tested against small stand-ins, as net/textproto and x/net/http2
// are, rather than a whole world. Each fake is safe for concurrent use.

// fakeShard is a zone's host built from the fakes below, one a role. A
// method of Shard no fake has (one added since) falls to the nil Shard
// beneath them: a test that reaches it panics on a nil interface, which
// names the method to fake in its role.
type fakeShard struct {
	*fakeDirectory
	*fakeSaving
	*fakeContent
	*fakeRouting
	*fakeInstancing
	*fakeParties
	*fakeAccounts
	admin *fakeAdmin
	unfaked
}

// unfaked sits one level below the fakes, so a fake's method wins over
// the nil Shard's of the same name.
type unfaked struct{ Shard }

func newFakeShard() *fakeShard {
	d := newFakeDirectory()
	return &fakeShard{
		fakeDirectory:  d,
		fakeSaving:     &fakeSaving{},
		fakeContent:    &fakeContent{},
		fakeRouting:    &fakeRouting{dir: d, pending: map[string]Session{}},
		fakeInstancing: &fakeInstancing{},
		fakeParties:    &fakeParties{members: map[string][]string{}},
		fakeAccounts:   &fakeAccounts{},
		admin:          &fakeAdmin{snoops: map[string]string{}},
	}
}

// Admin is the fake of the server-wide admin roles.
func (sh *fakeShard) Admin() Admin { return sh.admin }

// Comm is the fake of talk across zones.
func (*fakeShard) Comm() Comm { return fakeComm{} }

// fakeDirectory is the Directory role: the zones a test hosts, and where
// it says each character is.
type fakeDirectory struct {
	mu    sync.Mutex
	zones []*Zone
	where map[string]*Zone
}

func newFakeDirectory() *fakeDirectory {
	return &fakeDirectory{where: map[string]*Zone{}}
}

// host adds z to the zones the directory knows.
func (d *fakeDirectory) host(z *Zone) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.zones = append(d.zones, z)
}

// place records that z holds the named character (nil: nobody does).
func (d *fakeDirectory) place(name string, z *Zone) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if z == nil {
		delete(d.where, name)
		return
	}
	d.where[name] = z
}

func (d *fakeDirectory) Zone(id string) *Zone {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, z := range d.zones {
		if z.ID() == id {
			return z
		}
	}
	return nil
}

func (d *fakeDirectory) Zones() []*Zone {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]*Zone(nil), d.zones...)
}

func (d *fakeDirectory) Where(name string) *Zone {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.where[name]
}

// fakeSaving is the Saving role: it keeps every batch it is handed
// (never answering them) and hands out item ids from one counter, as the
// store does for every zone.
type fakeSaving struct {
	mu      sync.Mutex
	batches []*SaveBatch
	nextID  uint64
}

func (s *fakeSaving) Checkpoint(b *SaveBatch) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.batches = append(s.batches, b)
}

// Backup reports a copy that was never written.
func (s *fakeSaving) Backup(done func(path string, size int64, err error)) {
	done("", 0, errors.New("no store in a fake"))
}

func (s *fakeSaving) ReserveItemIDs(n uint64) uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	first := s.nextID + 1
	s.nextID += n
	return first
}

// fakeContent is the Content role: the snapshot a test sets (nil: none
// yet), and each zone's report that it reconciled.
type fakeContent struct {
	mu         sync.Mutex
	snap       *Snapshot
	reconciled []string // "zone@version", in order
	report     ReloadReport
}

// run makes s the content the host runs.
func (c *fakeContent) run(s *Snapshot) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.snap = s
}

func (c *fakeContent) Snapshot() *Snapshot {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.snap
}

func (c *fakeContent) Reconciled(z *Zone, version uint64, took time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.reconciled = append(c.reconciled, fmt.Sprintf("%s@%d", z.ID(), version))
}

// Reload answers at once with the report the test set.
func (c *fakeContent) Reload(by string, done func(ReloadReport)) { done(c.LastReload()) }

func (c *fakeContent) LastReload() ReloadReport {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.report
}

// reconciles lists the zones' reports of reconciling, as "zone@version".
func (c *fakeContent) reconciles() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.reconciled...)
}

// starterSet is the repository's starter world, loaded once per test
// binary for the tests that build zones by hand.
var starterSet = sync.OnceValues(func() (*content.Set, error) {
	return content.Load(os.DirFS("../areas"))
})

// fakeHostedZone builds the template zone of the starter world on sh,
// hosts it in sh's directory and boots it on the calling goroutine, which
// becomes its owner.
func fakeHostedZone(t *testing.T, sh *fakeShard, template string) *Zone {
	t.Helper()
	set, err := starterSet()
	if err != nil {
		t.Fatal(err)
	}
	z := New(set.Zones[template], set, sh, DefaultConfig(), Options{Seed: 1})
	sh.host(z)
	z.BootForTest()
	return z
}

// fakeSession is a player's connection in the fakes' tests: it keeps what
// it was sent.
type fakeSession struct {
	id   uint64
	mu   sync.Mutex
	out  []byte
	shut bool
}

var fakeSessionIDs atomic.Uint64

func newFakeSession() *fakeSession { return &fakeSession{id: fakeSessionIDs.Add(1)} }

func (s *fakeSession) ID() uint64 { return s.id }

func (s *fakeSession) Write(p []byte, prompt bool) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.out = append(s.out, p...)
	return !s.shut
}

func (s *fakeSession) Close(msg string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.out = append(s.out, msg...)
	s.shut = true
}

func (s *fakeSession) Width() int            { return 80 }
func (s *fakeSession) GMCP(string, any)      {}
func (s *fakeSession) Client() ClientInfo    { return ClientInfo{Name: "fake", Transport: "telnet"} }
func (s *fakeSession) SetColor(markup.Level) {}
func (s *fakeSession) ResetColor()           {}
func (s *fakeSession) Closed() bool          { s.mu.Lock(); defer s.mu.Unlock(); return s.shut }
func (s *fakeSession) String() string        { s.mu.Lock(); defer s.mu.Unlock(); return string(s.out) }

// fakeRouting is the Routing role over a fakeDirectory: a move delivers
// the handoff and places the character in its new zone, a hand-back
// takes it out and is kept for the test, and a test may leave a session
// waiting to take a character over.
type fakeRouting struct {
	dir     *fakeDirectory
	mu      sync.Mutex
	back    []string // "name why", in order
	pending map[string]Session
}

func (r *fakeRouting) Moving(name string, to *Zone, h Handoff) bool {
	if r.dir.Zone(to.ID()) != to || !to.Deliver(h) {
		return false
	}
	r.dir.place(name, to)
	return true
}

func (r *fakeRouting) TakePending(name string, from *Zone) Session {
	r.mu.Lock()
	defer r.mu.Unlock()
	s := r.pending[name]
	if s == nil || r.dir.Where(name) != from {
		return nil
	}
	delete(r.pending, name)
	return s
}

func (r *fakeRouting) HandBack(rec *CharRecord, why string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.back = append(r.back, rec.Name+" "+why)
	r.dir.place(rec.Name, nil)
}

// handedBack lists the hand-backs so far, as "name why".
func (r *fakeRouting) handedBack() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.back...)
}

// fakeComm is the Comm role: talk across zones goes nowhere, and a tell
// for someone away is refused.
type fakeComm struct{}

func (fakeComm) Channel(*ChannelLine, *Zone) {}
func (fakeComm) History(channel string, n int, done func([]HistoryLine, error)) {
	done(nil, nil)
}
func (fakeComm) KeepTell(from, to, text string, done func(string)) { done("No one by that name.") }
func (fakeComm) Arrived(string)                                    {}
func (fakeComm) MailTo(to string, done func(error))                { done(mail.ErrNoSuchPlayer) }
func (fakeComm) SendLetter(l mail.Letter, done func(string))       { done("No one by that name.") }
func (fakeComm) Letters(name string, done func([]mail.Letter, error)) {
	done(nil, nil)
}
func (fakeComm) ReadLetter(name string, n int, done func(mail.Letter, error)) {
	done(mail.Letter{}, mail.ErrNoLetter)
}
func (fakeComm) DeleteLetter(name string, n int, done func(mail.Letter, error)) {
	done(mail.Letter{}, mail.ErrNoLetter)
}

// fakeInstancing is the Instancing role: it keeps every request it is
// asked (answering none: the test posts the answer it wants), refuses
// them all while refusal is set, and drains when told to.
type fakeInstancing struct {
	mu        sync.Mutex
	requests  []MintRequest
	refusal   string
	draining  bool
	abandoned []string
}

func (f *fakeInstancing) RequestInstance(req MintRequest) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.refusal != "" {
		return f.refusal
	}
	f.requests = append(f.requests, req)
	return ""
}

func (f *fakeInstancing) PartyInstance(template, party string) (*Zone, bool) { return nil, false }

func (f *fakeInstancing) AbandonInstance(id string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.abandoned = append(f.abandoned, id)
}

func (f *fakeInstancing) InstanceSlots(account string) int { return 1 }
func (f *fakeInstancing) Instances() []InstanceInfo        { return nil }

func (f *fakeInstancing) Draining() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.draining
}

// drain makes the host say it is shutting down.
func (f *fakeInstancing) drain() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.draining = true
}

// asked lists the mint requests so far.
func (f *fakeInstancing) asked() []MintRequest {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]MintRequest(nil), f.requests...)
}

// fakeParties is the Parties role: each leader's members, in order.
type fakeParties struct {
	mu      sync.Mutex
	members map[string][]string // leader -> the others
}

func (p *fakeParties) leaderLocked(name string) string {
	if _, ok := p.members[name]; ok {
		return name
	}
	for l, ms := range p.members {
		if slices.Contains(ms, name) {
			return l
		}
	}
	return ""
}

func (p *fakeParties) Party(name string) (string, []string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	l := p.leaderLocked(name)
	if l == "" {
		return "", nil
	}
	return l, append([]string(nil), p.members[l]...)
}

func (p *fakeParties) PartyAdd(leader, member string, max int) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.leaderLocked(member) != "" {
		return member + " is in a party already."
	}
	if len(p.members[leader])+1 >= max {
		return "Your party is full."
	}
	p.members[leader] = append(p.members[leader], member)
	return ""
}

func (p *fakeParties) PartyRemove(leader, member string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	ms := p.members[leader]
	i := slices.Index(ms, member)
	if i < 0 {
		return false
	}
	p.members[leader] = slices.Delete(ms, i, i+1)
	return true
}

func (p *fakeParties) PartyLeave(name string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, ok := p.members[name]; ok {
		delete(p.members, name)
		return
	}
	if l := p.leaderLocked(name); l != "" {
		ms := p.members[l]
		p.members[l] = slices.Delete(ms, slices.Index(ms, name), slices.Index(ms, name)+1)
	}
}

func (p *fakeParties) PartyVitals(PartyMember) {}

// fakeAdmin is the Admin roles: a countdown kept for the test, bans and
// snoops that are noted and answered at once, reports that say who asked.
type fakeAdmin struct {
	mu        sync.Mutex
	countdown string // "by secs reason", "" if none
	bans      []string
	snoops    map[string]string // by -> target
}

func (a *fakeAdmin) Shutdown(by string, secs int, reason string, reboot bool) string {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.countdown != "" {
		return "A countdown is already running."
	}
	a.countdown = fmt.Sprintf("%s %d %s", by, secs, reason)
	return fmt.Sprintf("The countdown of %d seconds begins.", secs)
}

func (a *fakeAdmin) CancelShutdown(by string) string {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.countdown == "" {
		return "No countdown is running."
	}
	a.countdown = ""
	return "The countdown is cancelled."
}

func (a *fakeAdmin) Ban(by, target string, expires time.Time, reason string, done func(string)) {
	a.mu.Lock()
	a.bans = append(a.bans, target)
	a.mu.Unlock()
	done("Banned " + target + ".")
}

func (a *fakeAdmin) Unban(by, target string, done func(string)) { done("Unbanned " + target + ".") }

func (a *fakeAdmin) Snoop(by, target string) (*Zone, string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.snoops[by] = target
	return nil, target + " is not here."
}

func (a *fakeAdmin) Unsnoop(by string) (string, *Zone) {
	a.mu.Lock()
	defer a.mu.Unlock()
	t := a.snoops[by]
	delete(a.snoops, by)
	return t, nil
}

func (a *fakeAdmin) Stat(by, name string, done func(string)) { done("stat of " + name + " for " + by) }
func (a *fakeAdmin) Sessions(by string, done func(string))   { done("sessions for " + by) }
func (a *fakeAdmin) SaveAll(by string, done func(string))    { done("saved for " + by) }

// running is the countdown the host runs, "" if none.
func (a *fakeAdmin) running() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.countdown
}

// fakeAccounts is the Accounts role: every role change it is asked for
// is kept and agreed to at once; keys and role lists are answered with a
// line naming what was asked.
type fakeAccounts struct {
	mu      sync.Mutex
	changes []RoleChange
}

func (a *fakeAccounts) SSHKeys(name, op, arg string, done func(string)) {
	done("keys " + op + " for " + name)
}

func (a *fakeAccounts) ChangeRole(ch RoleChange, done func(string)) {
	a.mu.Lock()
	a.changes = append(a.changes, ch)
	a.mu.Unlock()
	done("Done: " + ch.Name + " " + ch.Role + ".")
}

func (a *fakeAccounts) RolesOf(name string, done func(string)) { done(name + " holds no role.") }

// changed lists the role changes asked for so far.
func (a *fakeAccounts) changed() []RoleChange {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]RoleChange(nil), a.changes...)
}
