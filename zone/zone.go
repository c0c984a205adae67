package zone

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"log/slog"
	mrand "math/rand/v2"
	"runtime/debug"
	"sync/atomic"
	"time"

	"zonemud/content"
	"zonemud/internal/logev"
	"zonemud/internal/queue"
	"zonemud/script"
)

// InboxSize is the capacity of a zone's inbox.
const InboxSize = 256

// Config is the [zone] section of config.toml.
type Config struct {
	// LinkDeadSecs is how long a character whose connection dropped stays
	// in the world waiting for its player to come back.
	LinkDeadSecs int `toml:"linkdead_secs"`
	// IdleMins logs out a player who has typed nothing for this long
	// (0: never).
	IdleMins int `toml:"idle_mins"`
	// CheckpointSecs is the save interval for characters that changed.
	CheckpointSecs int `toml:"checkpoint_secs"`
	// Dormant lets an empty zone with nothing due stop its ticker.
	Dormant bool `toml:"dormant"`
	// MaxRoomItems caps the items lying in one room; drops past it are
	// refused.
	MaxRoomItems int `toml:"max_room_items"`
	// SSHPort is the port players reach the SSH front on, "" when SSH is
	// off. The wiring sets it; help text that shows an ssh command line
	// names it.
	SSHPort string `toml:"-"`
	// CrowdSize is the number of players in a room past which comings and
	// goings are told as one summary a second rather than one line each,
	// and others' output reaches a player at most once per flushGap
	// (0: never).
	CrowdSize int `toml:"crowd_size"`
	// ThrongSize is the number of players in a room past which what one
	// says, asks or emotes reaches only those near them, and a look names
	// those near and counts the rest (throng.go; 0: never).
	ThrongSize int `toml:"throng_size"`
}

// DefaultConfig is the configuration used where config.toml is silent.
func DefaultConfig() Config {
	return Config{LinkDeadSecs: 60, IdleMins: 60, CheckpointSecs: 10, Dormant: true, MaxRoomItems: 1000, CrowdSize: 30, ThrongSize: 100}
}

// Validate reports the first out-of-range value, naming its key.
func (c Config) Validate() error {
	switch {
	case c.LinkDeadSecs < 1 || c.LinkDeadSecs > 3600:
		return fmt.Errorf("zone.linkdead_secs: %d is out of range 1 to 3600", c.LinkDeadSecs)
	case c.IdleMins < 0 || c.IdleMins > 24*60:
		return fmt.Errorf("zone.idle_mins: %d is out of range 0 to 1440", c.IdleMins)
	case c.CheckpointSecs < 1 || c.CheckpointSecs > 3600:
		return fmt.Errorf("zone.checkpoint_secs: %d is out of range 1 to 3600", c.CheckpointSecs)
	case c.MaxRoomItems < 10 || c.MaxRoomItems > 100000:
		return fmt.Errorf("zone.max_room_items: %d is out of range 10 to 100000", c.MaxRoomItems)
	case c.CrowdSize < 0 || c.CrowdSize > 100000:
		return fmt.Errorf("zone.crowd_size: %d is out of range 0 to 100000", c.CrowdSize)
	case c.ThrongSize != 0 && (c.ThrongSize < 3*throngNear || c.ThrongSize > 100000):
		return fmt.Errorf("zone.throng_size: %d is out of range: 0 (never), or %d to 100000", c.ThrongSize, 3*throngNear)
	}
	return nil
}

// Zone is the actor. Its exported methods are safe from any goroutine; they
// only post. Everything else is owned by the goroutine running Run.
type Zone struct {
	id       string       // immutable after New: which actor this is
	template string       // immutable after New: whose content it runs
	shard    Shard        // immutable after New
	cfg      Config       // immutable after New
	log      *slog.Logger // immutable after New

	inbox chan msg // sessions post here; may block while the zone lives
	// mail is zone-to-zone and world traffic. A push never blocks, so two
	// zones sending to each other can never deadlock the way two full
	// channels would; it refuses once the zone has stopped, and a sender
	// handing over a character then keeps it. The zone drains it whole
	// before each inbox message, which keeps causal order: anything pushed
	// before a session was pointed here is handled before that session's
	// next input.
	mail *queue.Queue[msg]
	dead chan struct{} // closed when Run returns

	owner ownerCheck

	// Zone goroutine only from here down.
	proto       *content.Zone // this zone's content: replaced by a reload
	set         *content.Set  // the content it belongs to: replaced by a reload
	retired     bool          // a reload took this zone out of the content
	resetTimer  pulseHandle   // runs resetZone every resetEvery seconds
	resetEvery  int
	pulses      pulses
	tasks       taskQueue
	rng         *mrand.Rand
	running     *command // zone goroutine only: the command being run, nil between commands
	rooms       map[string]*Room
	chars       map[rid]*Char
	items       map[rid]*Item
	players     map[string]*Char // by name
	bySess      map[uint64]*Char // by session id
	nextRID     rid
	itemIDs     [2]uint64 // next, end of the reserved block
	flushList   []*Char   // players queued since the last flush
	flushWait   waitHeap  // players whose output waits out its gap, by when it falls due
	episodes    uint64    // waits begun (Player.episode)
	rosterPulse uint64    // the pulse the roster was last published in
	outFree     [][]byte  // spare output buffers (session.go)
	newsRooms   []*Room   // crowded rooms with comings and goings to tell
	nearBuf     []*Char   // near's scratch (throng.go)
	descBuf     []byte    // describeRoom's scratch (cmd_info.go)
	lazyOut     bool      // sendLine is telling news: comings and goings, channel lines (newsGap)
	// dirtyChars and dirtyRooms are what a checkpoint looks at: every
	// character marked changed (dirty, an arrival, a failed batch) and
	// every room whose persistent items changed since the last one, so
	// that a checkpoint, which every move to another zone makes, costs
	// what changed and not the zone's whole roster and map (save.go).
	dirtyChars map[*Char]struct{}
	dirtyRooms map[*Room]struct{}
	// freshChars are the dirty characters changed since a checkpoint last
	// looked at them, which is all a crossing's checkpoint looks at.
	freshChars     map[*Char]struct{}
	flushDue       time.Time // when the next waiting output is due, if any (flush)
	waiting        int       // players with queued set: output waiting for a flush
	urgentList     []*Char   // players whose output answers them: flushed with the batch
	gap            time.Duration
	gen            uint64 // the lease generation saves carry (heartbeatMsg changes it)
	stopping       bool
	dormant        bool
	rosterOld      bool // the published roster is out of date
	msgSeq         uint64
	handling       msg                     // the message being handled, for fault reports
	objects        map[string][]ItemRecord // placed at boot, then dropped
	fighters       []*Char                 // characters in a fight, in the order they joined
	combat         pulseHandle             // the combat driver, while anyone fights
	corpses        map[*content.Mob]*content.Item
	cv             charVars             // reused by vars and combatVars: formulas allocate nothing
	scripts        Scripts              // compiled with set: replaced by a reload
	vm             *script.VM           // nil when the zone has no scripts
	ticking        []script.ID          // entities whose script defines on_tick
	tickTimer      pulseHandle          // runs scriptTick while ticking is not empty
	tickRest       pulseHandle          // runs runTicks next pulse: a round the budget cut short
	tickNext       int                  // the round's cursor in ticking
	tickLeft       int                  // entities the round has still to tick
	tickSkipped    uint64               // ticks cut by the next round, since the last budget report
	overruns       uint64               // pulses whose script budget was spent, since the last report
	budgetReported uint64               // pulse of the last budget report
	trigWaiting    []waitingTrigger     // triggers put off by the trigger budget, oldest first
	trigWaited     uint64               // triggers put off, since the last budget report
	trigSkipped    uint64               // on_command calls skipped or waiting triggers dropped, since then
	scriptLogged   map[string]time.Time // last log line per failing script
	scriptErrs     []scriptErr          // the last few script errors, for scripterrors
	roundBuf       []*Char              // scratch for combatRound
	booted         time.Time            // when boot ran
	instTokens     uint64               // the last MintRequest token this zone gave

	// Read from any goroutine.
	version      atomic.Uint64                 // atomic: the content version, written by the zone
	name         atomic.Pointer[string]        // atomic: the zone's display name, written by the zone
	roster       atomic.Pointer[[]RosterEntry] // atomic: written by the zone
	pop          atomic.Int32                  // atomic: players held, link-dead included
	faults       atomic.Uint64                 // atomic: recovered panics
	worst        worstLateness                 // atomic: ns, the worst pulse lateness since the last scrape
	pulseNo      atomic.Uint64                 // atomic: pulses ticked
	dropped      atomic.Uint64                 // atomic: inputs dropped as duplicates
	checkpoints  atomic.Uint64                 // atomic: batches queued
	shopTrades   atomic.Uint64                 // atomic: purchases and sales (shop.go)
	shopClock    func() time.Time              // set before Run by tests; nil: time.Now
	saveFailures atomic.Uint64                 // atomic: batches refused or failed
	mailDepth    atomic.Int32                  // atomic: mailbox length at the last drain
	sleeping     atomic.Bool                   // atomic: the ticker is stopped (dormant)
	luaStats     atomic.Pointer[script.Stats]  // atomic: the VM's stats, published at most once a second
	luaAt        time.Time                     // zone goroutine only: when luaStats was last published
	met          meters                        // immutable after New, but luaPrev: zone goroutine only
}

// RosterEntry is one player as `who` shows it.
type RosterEntry struct {
	Name     string
	Title    string
	Level    int
	Zone     string // zone name
	LinkDead bool
	Admin    bool
	Invis    int // wizinvis level: those who see below it do not see the player
	Idle     time.Duration
}

// Options are the less common settings of New.
type Options struct {
	// ID, when set, makes this zone an instance of proto: its id differs
	// from its template.
	ID string
	// Seed seeds the zone's RNG; 0 picks one from the id (a permanent zone)
	// or from crypto/rand (an instance).
	Seed uint64
	Log  *slog.Logger
	// Objects are the persistent items the store holds for this zone's
	// rooms, by room ref. An instance gets none.
	Objects map[string][]ItemRecord
	// Scripts are the compiled scripts and the Lua limits.
	Scripts Scripts
	// Gen is the generation of the lease the host holds for this zone,
	// which every save batch carries; 0 for a zone without a lease.
	Gen uint64
	// Metrics are the world's zone series; nil counts into series no one
	// reads.
	Metrics *Metrics
	// Version is the content version set belongs to (Snapshot.Version).
	Version uint64
}

// New builds a zone for proto but does not start it; call Run.
func New(proto *content.Zone, set *content.Set, shard Shard, cfg Config, opt Options) *Zone {
	id := proto.ID
	if opt.ID != "" {
		id = opt.ID
	}
	seed := opt.Seed
	if seed == 0 {
		if id == proto.ID {
			h := fnv.New64a()
			h.Write([]byte(id))
			seed = h.Sum64()
		} else {
			var b [8]byte
			_, _ = rand.Read(b[:]) // crypto/rand.Read never fails on supported platforms
			seed = binary.LittleEndian.Uint64(b[:])
		}
	}
	lg := opt.Log
	if lg == nil {
		lg = slog.Default()
	}
	lg = lg.With(logev.Zone(id), logev.Template(proto.ID))
	z := &Zone{
		id: id, template: proto.ID, proto: proto, shard: shard, cfg: cfg, log: lg,
		inbox: make(chan msg, InboxSize),
		mail:  queue.New(queue.Options[msg]{KeepCap: 1024}),
		dead:  make(chan struct{}),
		set:   set,
		rng:   mrand.New(mrand.NewPCG(seed, seed^0x9e3779b97f4a7c15)),
		rooms: map[string]*Room{}, chars: map[rid]*Char{}, items: map[rid]*Item{},
		players: map[string]*Char{}, bySess: map[uint64]*Char{}, gap: flushGap,
		dirtyChars: map[*Char]struct{}{}, dirtyRooms: map[*Room]struct{}{}, freshChars: map[*Char]struct{}{},
		objects: opt.Objects,
		scripts: opt.Scripts,
		gen:     opt.Gen,
		met:     opt.Metrics.meters(proto.ID),
	}
	z.pulses.fault = func(v any) { z.fault(faultPulse, v) }
	z.version.Store(opt.Version)
	z.name.Store(&proto.Name)
	empty := []RosterEntry{}
	z.roster.Store(&empty)
	for _, rp := range proto.Rooms {
		z.rooms[rp.Ref] = newRoom(rp)
	}
	return z
}

// ID is which actor this zone is: its template id, or <template>#<hex> for
// an instance.
func (z *Zone) ID() string { return z.id }

// Template is whose content this zone runs.
func (z *Zone) Template() string { return z.template }

// Name is the zone's display name.
func (z *Zone) Name() string { return *z.name.Load() }

// Dead is closed when the zone has stopped.
func (z *Zone) Dead() <-chan struct{} { return z.dead }

// Roster is the zone's players as of its last change. Safe from any
// goroutine; the slice must not be modified.
func (z *Zone) Roster() []RosterEntry { return *z.roster.Load() }

// Population is the number of players the zone holds, link-dead included.
func (z *Zone) Population() int { return int(z.pop.Load()) }

// Faults is the number of recovered panics.
func (z *Zone) Faults() uint64 { return z.faults.Load() }

// post delivers m to the inbox, blocking while the inbox is full and the
// zone alive. It reports false if the zone has stopped.
func (z *Zone) post(m msg) bool {
	select {
	case z.inbox <- m:
		return true
	case <-z.dead:
		return false
	}
}

// send queues m on the zone's mailbox. It never blocks; it is how zones and
// the world talk to a zone.
func (z *Zone) send(m msg) bool { return z.mail.Push(m) == nil }

// Input posts a line the player of the named character typed on session
// s. It blocks while the inbox is full and reports false if the zone has
// stopped. The host posts it to the zone its residency index names; a zone
// that no longer holds the character passes it on through the shard.
func (z *Zone) Input(s Session, name string, seq uint64, line string) bool {
	return z.post(inputMsg{sess: s, name: name, seq: seq, line: line, at: time.Now()})
}

// Dropped tells the zone that session s, playing the named character,
// went away without a quit.
func (z *Zone) Dropped(s Session, name string) bool {
	return z.post(dropMsg{sess: s, name: name})
}

// Handoff is a character on its way from one zone to another: the sending
// zone gives it to its shard's Moving, which delivers it with Deliver.
// Whoever holds a Handoff owns the character in it.
type Handoff struct{ m transferMsg }

// Deliver queues a handoff on the zone's mailbox. It never blocks, and
// takes no lock but the mailbox's, so the shard may call it under its
// own; it reports false, keeping nothing, if the zone has stopped.
func (z *Zone) Deliver(h Handoff) bool { return z.send(h.m) }

// Arrive queues a character's entry into the world at room (a ref; "" for
// the start room). The zone owns rec from now on. note, if not empty, is
// shown to the player after the room.
func (z *Zone) Arrive(rec *CharRecord, s Session, room, note string) bool {
	return z.send(arriveMsg{rec: rec, sess: s, room: room, note: note, fresh: true})
}

// Wake tells the zone a login is waiting for the named character.
func (z *Zone) Wake(name string) { z.send(wakeMsg{name: name}) }

// Heartbeat asks the zone's goroutine to show it is alive: it takes gen
// (if not 0) as the lease generation its saves carry from now on, and calls
// ack, which must not block. A zone whose goroutine is wedged never calls
// ack; its host lets its lease lapse. It reports false if the zone has
// stopped.
func (z *Zone) Heartbeat(gen uint64, ack func()) bool {
	return z.send(heartbeatMsg{gen: gen, ack: ack})
}

// Broadcast queues a line for every player in the zone.
func (z *Zone) Broadcast(text string) { z.send(broadcastMsg{text: text}) }

// SaveNow asks the zone to checkpoint at once rather than at its next
// interval, and calls done (on the zone goroutine; it must not block) once
// the batch is queued with the saver. It reports false, and never calls
// done, if the zone has stopped: a stopped zone saved everyone as it left.
func (z *Zone) SaveNow(done func()) bool { return z.send(saveNowMsg{done: done}) }

// Run is the actor loop. It returns when ctx is cancelled, after the zone
// has drained its queues and handed every character back.
func (z *Zone) Run(ctx context.Context) {
	z.owner.claim()
	defer close(z.dead)
	z.boot()
	rc := newRunClock()
	defer rc.stop()
	for {
		select {
		case <-ctx.Done():
			z.stop()
			return
		case m := <-z.inbox:
			z.wakeUp(rc)
			z.batch(m)
		case <-z.mail.Signal():
			z.mailArrived(rc)
		case fired := <-rc.ticker.C:
			z.pulse(rc, fired)
		case <-rc.wakeC:
			rc.wakeC = nil
			z.wakeUp(rc)
		case <-rc.flushC:
			rc.flushC = nil
		}
		// Timers after the batch (seed 002): a tick that fell due while
		// the batch ran is not left to the select's coin.
		select {
		case fired := <-rc.ticker.C:
			z.pulse(rc, fired)
		default:
		}
		z.flush()
		rc.flushAt(z.flushDue)
	}
}

// runClock is the timers of Run's loop, on its goroutine only: the pulse
// ticker, the timer that wakes a dormant zone for its next task, and the
// one that wakes the zone for output that waits out its gap (flush).
type runClock struct {
	ticker    *time.Ticker
	wake      *time.Timer
	wakeC     <-chan time.Time // nil unless a dormant zone waits for wake
	dormantAt time.Time        // when the zone went dormant
	flushT    *time.Timer
	flushC    <-chan time.Time // nil unless flushT is armed
	flushFor  time.Time        // the due flushT is armed for
}

func newRunClock() *runClock {
	rc := &runClock{ticker: time.NewTicker(PulseInterval), flushT: time.NewTimer(time.Hour)}
	rc.flushT.Stop()
	return rc
}

func (rc *runClock) stop() {
	rc.flushT.Stop()
	rc.ticker.Stop()
}

// flushAt arms the flush timer for due, or disarms it for the zero time.
// A timer armed for due already is left alone: the loop calls this after
// every batch, and most batches leave the earliest wait where it was
// (each Reset is work for the runtime's timer heap).
func (rc *runClock) flushAt(due time.Time) {
	if !due.IsZero() {
		if rc.flushC != nil && due.Equal(rc.flushFor) {
			return
		}
		rc.flushT.Reset(time.Until(due))
		rc.flushC, rc.flushFor = rc.flushT.C, due
	} else if rc.flushC != nil {
		rc.flushT.Stop()
		rc.flushC = nil
	}
}

// mailArrived handles what the mailbox holds. A heartbeat reads no game
// state, so a dormant zone answers heartbeats alone without waking.
func (z *Zone) mailArrived(rc *runClock) {
	var q []msg
	if z.dormant {
		if q = z.mail.Pop(); onlyHeartbeats(q) {
			z.handleMail(q)
			return
		}
	}
	z.wakeUp(rc)
	z.handleMail(q)
	z.batch(nil)
}

// pulse runs one tick of the zone and, if nothing here needs the ticker,
// puts the zone to sleep.
func (z *Zone) pulse(rc *runClock, fired time.Time) {
	// Lateness is how long the tick waited for the zone: the ticker
	// stamps when it fired, and a zone busy with messages takes it
	// later.
	z.recordLateness(time.Since(fired))
	began := time.Now()
	z.tick()
	z.met.pulse.Observe(time.Since(began).Seconds())
	if z.cfg.Dormant && z.canSleep() {
		z.sleep(rc)
	}
}

// sleep makes the zone dormant: the ticker stops, and the wake timer is
// set for the next task or pulse callback due, if any.
func (z *Zone) sleep(rc *runClock) {
	// Its checkpoints do not wake it, so what changed is queued now
	// (nothing, usually).
	z.checkpoint(nil, false)
	next := z.nextDue()
	rc.ticker.Stop()
	z.dormant = true
	z.sleeping.Store(true)
	rc.dormantAt = time.Now()
	if next > 0 {
		d := time.Duration(next-z.pulses.now) * PulseInterval
		if rc.wake == nil {
			rc.wake = time.NewTimer(d)
		} else {
			rc.wake.Reset(d)
		}
		rc.wakeC = rc.wake.C
	}
}

// wakeUp ends a dormant zone's sleep: the pulses it slept through are
// counted, the tasks due meanwhile run, and the ticker starts again.
func (z *Zone) wakeUp(rc *runClock) {
	if !z.dormant {
		return
	}
	z.dormant = false
	z.sleeping.Store(false)
	if rc.wake != nil {
		rc.wake.Stop()
		rc.wakeC = nil
	}
	missed := uint64(time.Since(rc.dormantAt) / PulseInterval)
	// What an empty zone's checkpoints and idle sweeps would have
	// done while it slept was done before it slept.
	z.pulses.skipIdle(z.pulses.now + missed)
	z.pulses.catchUp(z.pulses.now+missed, func() { z.tasks.runDue(z.pulses.now, z.fireTask) })
	z.pulseNo.Store(z.pulses.now)
	rc.ticker.Reset(PulseInterval)
}

// The inbox is drained in bounded batches (seed 002): until it is empty,
// or batchMax messages, or batchBudget of time, whichever comes first.
// Then the timers that fell due run and every player the batch wrote to is
// flushed once, so under load each player gets one write per batch rather
// than one per message, a flood never holds a pulse back by more than one
// batch, and a lone command is flushed as soon as it is handled.
const (
	batchMax    = 32
	batchBudget = 5 * time.Millisecond
)

// batch handles first (nil for a wake-up by mail) and whatever else is
// queued, within the batch bounds. Mail is handled before each inbox
// message, which keeps causal order.
func (z *Zone) batch(first msg) {
	start := time.Now()
	z.catchUp()
	n := z.drainMail()
	if first != nil {
		z.handle(first)
		n++
	}
	for n < batchMax && time.Since(start) < batchBudget {
		select {
		case m := <-z.inbox:
			n += z.drainMail()
			z.handle(m)
			n++
		default:
			if z.mail.Len() == 0 {
				z.countBatch(n)
				return
			}
			n += z.drainMail()
		}
	}
	z.countBatch(n)
}

// countBatch counts one batch of n messages.
func (z *Zone) countBatch(n int) {
	z.met.batches.Inc()
	z.met.messages.Add(float64(n))
}

// canSleep reports whether the zone may stop its ticker: nobody here,
// nothing queued, nothing due within a few pulses.
func (z *Zone) canSleep() bool {
	if len(z.players) > 0 || len(z.inbox) > 0 || z.mail.Len() > 0 {
		return false
	}
	next := z.nextDue()
	return next == 0 || next > z.pulses.now+8
}

// nextDue is the pulse of the next pulse callback or task that must wake
// the zone; 0 if none.
func (z *Zone) nextDue() uint64 {
	a, aok := z.pulses.nextWake()
	b, bok := z.tasks.nextDue()
	switch {
	case aok && bok:
		return min(a, b)
	case aok:
		return a
	case bok:
		return b
	}
	return 0
}

// drainMail handles everything on the mailbox and returns how many
// messages that was.
func (z *Zone) drainMail() int { return z.handleMail(z.mail.Pop()) }

// handleMail handles q, popped from the mailbox, hands it back, and
// returns how many messages it held.
func (z *Zone) handleMail(q []msg) int {
	z.owner.check()
	if len(q) == 0 {
		return 0
	}
	z.mailDepth.Store(int32(len(q)))
	for _, m := range q {
		z.handle(m)
	}
	n := len(q)
	z.mail.Recycle(q)
	return n
}

// onlyHeartbeats reports whether q holds heartbeats and nothing else.
func onlyHeartbeats(q []msg) bool {
	for _, m := range q {
		if _, ok := m.(heartbeatMsg); !ok {
			return false
		}
	}
	return true
}

// tick is one pulse.
func (z *Zone) tick() {
	z.tellNews()
	z.owner.check()
	z.catchUp()
	z.scriptPulse()
	z.pulses.tick()
	z.tasks.runDue(z.pulses.now, z.fireTask)
	z.pulseNo.Store(z.pulses.now)
}

func (z *Zone) fireTask(fn func()) {
	z.owner.check()
	defer func() {
		if v := recover(); v != nil {
			z.fault(faultTask, v)
		}
	}()
	fn()
}

// handle runs one message. A panic in a handler is recovered here: the zone
// logs it, counts it and goes on; a session whose message faulted is
// disconnected and its character handed back, so no one else is affected.
func (z *Zone) handle(m msg) {
	z.owner.check()
	z.handling = m
	defer func() {
		z.handling = nil
		if v := recover(); v != nil {
			z.recovered(m, v)
		}
	}()
	switch m := m.(type) {
	case inputMsg:
		z.handleInput(m)
	case dropMsg:
		z.handleDrop(m)
	case arriveMsg:
		z.handleArrive(m)
	case wakeMsg:
		z.handleWake(m)
	case transferMsg:
		z.handleTransfer(m)
	case tellMsg:
		z.handleTell(m)
	case answerMsg:
		z.handleAnswer(m)
	case groupStatMsg:
		z.handleGroupStat(m)
	case groupInfoMsg:
		z.handleGroupInfo(m)
	case partyMsg:
		z.handlePartyTalk(m)
	case noticeMsg:
		if c := z.players[m.to]; c != nil {
			z.sendLine(c, m.text)
		} else {
			z.forward(m, m.to) // the player walked on while a worker ran
		}
	case channelMsg:
		z.deliverChannel(m.line)
	case heldTellsMsg:
		z.handleHeldTells(m)
	case draftMsg:
		z.handleDraft(m)
	case historyMsg:
		z.handleHistory(m)
	case broadcastMsg:
		for _, c := range z.players {
			z.sendLine(c, m.text)
		}
	case doorMsg:
		z.handleDoor(m)
	case saveNowMsg:
		z.saveNow(m)
	case savedMsg:
		z.handleSaved(m)
	case rolesMsg:
		z.handleRoles(m)
	case reloadMsg:
		z.catchUp()
	case buildersMsg:
		z.handleBuilders(m)
	case statMsg:
		z.handleStat(m)
	case snoopMsg:
		z.handleSnoop(m)
	case adminMsg:
		z.handleAdmin(m)
	case buildMsg:
		z.handleBuild(m)
	case instanceReadyMsg:
		z.handleInstanceReady(m)
	case ejectMsg:
		z.handleEject(m)
	case heartbeatMsg:
		if m.gen != 0 {
			z.gen = m.gen
		}
		if m.ack != nil {
			m.ack()
		}
	default:
		z.log.Error("zone: a message of unknown type", logev.ID(7013), "type", fmt.Sprintf("%T", m))
	}
}

// recovered reports a recovered panic. A character the faulted message
// concerned is handed back (whole, saved) and its session closed, so no one
// else is affected: the session's character for a message from a session,
// and for an arrival (a login, or a walk from another zone) the arriving
// character, whether or not the fault struck before the zone took it in.
func (z *Zone) recovered(m msg, v any) {
	event := z.fault(fmt.Sprintf("%T", m), v)
	var s Session
	if fs, ok := m.(fromSession); ok {
		s = fs.session()
	}
	func() {
		defer func() {
			if v2 := recover(); v2 != nil {
				z.log.Error("zone: the hand-back after a fault panicked too", logev.ID(7014), "incident", event, "panic", fmt.Sprint(v2))
			}
		}()
		s = z.handBackAfterFault(m, s)
	}()
	if s != nil {
		s.Close(fmt.Sprintf("Something went wrong on our side (event %s). Your character is safe; please log in again.", event))
	}
}

// fault counts and logs a recovered panic, with its stack, and returns the
// event name players are told.
func (z *Zone) fault(what string, v any) string {
	z.msgSeq++
	incident := fmt.Sprintf("%s-%d-%d", z.id, z.pulses.now, z.msgSeq)
	if what == faultPulse || what == faultTask {
		z.countFault(what)
		z.log.Error("zone: a timer or task panicked; the zone survived", logev.ID(7004), "incident", incident, "kind", what, "panic", fmt.Sprint(v), "stack", string(debug.Stack()))
		return incident
	}
	z.countFault(faultMessage)
	z.log.Error("zone: a handler panicked; the zone survived", logev.ID(7003), "incident", incident, "message", what, "panic", fmt.Sprint(v), "stack", string(debug.Stack()))
	return incident
}

// handBackAfterFault hands back the character a faulted message concerned,
// once, and returns the session to close. The world records this zone as
// the holder of an arriving character from the moment it was sent here; if
// the fault struck before the zone took it in, the zone hands back its
// record, or every later login would wait on a zone that does not have it.
func (z *Zone) handBackAfterFault(m msg, s Session) Session {
	var name string
	var half *Char // a body not yet taken in
	var rec *CharRecord
	switch m := m.(type) {
	case arriveMsg:
		if m.rec == nil {
			return s
		}
		name, rec = m.rec.Name, m.rec
	case transferMsg:
		if m.ch == nil {
			return s
		}
		name, half = m.ch.name, m.ch
		if m.ch.pl != nil {
			s = m.ch.pl.sess
		}
	default:
		if s == nil {
			return nil
		}
		if c := z.bySess[s.ID()]; c != nil {
			z.freeOut(c.pl) // the panic may have left it half built
			z.presence(c.room, c, c, noticeLeft)
			z.handBack(c, "fault")
		}
		return s
	}
	if c := z.players[name]; c != nil {
		// Taken in, perhaps not yet bound to its session.
		z.freeOut(c.pl)
		z.presence(c.room, c, c, noticeLeft)
		z.handBack(c, "fault")
		return s
	}
	z.log.Error("zone: handing back a character whose arrival faulted", logev.ID(7015), logev.Player(name))
	for rid, c := range z.chars {
		if c.pl != nil && c.name == name && c != half { // half made by newPlayerChar
			if c.room != nil {
				c.room.removeChar(c)
			}
			delete(z.chars, rid)
		}
	}
	if half != nil {
		if half.room != nil {
			half.room.removeChar(half)
		}
		rec = z.record(half)
		z.forget(half)
	}
	z.handedBack(rec, "fault")
	return s
}

// boot builds the zone's world: rooms are made in New; here the resets run.
func (z *Zone) boot() {
	z.owner.check()
	z.booted = time.Now()
	z.loadObjects(z.objects)
	z.objects = nil
	z.startScripts()
	z.resetZone(true)
	z.greetBorderDoors()
	z.startCheckpoints()
	z.scheduleResets()
	if z.cfg.IdleMins > 0 {
		z.pulses.every(uint64(time.Minute/PulseInterval), z.idleSweep).whileEmpty()
	}
}

// scheduleResets runs the zone's resets every reset_secs (never for 0, and
// never in an instance copy), replacing the schedule a reload found.
func (z *Zone) scheduleResets() {
	z.resetTimer.cancel()
	z.resetEvery = z.proto.ResetSecs
	if z.isInstance() {
		// A copy is populated once, when it is made: no repop, or a
		// party could farm one copy for ever.
		z.resetEvery = 0
	}
	if z.resetEvery > 0 {
		z.resetTimer = z.pulses.every(uint64(z.resetEvery)*uint64(time.Second/PulseInterval), func() { z.resetZone(false) })
	}
}

// stop is the zone's last act: handle what is queued, then hand everyone
// back and disconnect them.
func (z *Zone) stop() {
	z.owner.check()
	z.stopping = true
	for {
		select {
		case m := <-z.inbox:
			z.handle(m)
			continue
		default:
		}
		if z.mail.Len() == 0 {
			break
		}
		z.drainMail()
	}
	// From here on nothing more is taken: a sender whose mail is refused
	// keeps what it meant to hand over. What slipped in since the drain
	// is handled now, while everyone is still here to be handed back.
	z.mail.Close()
	for _, m := range z.mail.Pop() {
		z.handle(m)
	}
	// Everyone leaves in one checkpoint, then is handed back.
	type leaver struct {
		rec *CharRecord
		s   Session
	}
	var leavers []leaver
	var recs []*CharRecord
	for _, c := range z.sortedPlayers() {
		z.flushOne(c, flushOther)
		l := leaver{rec: z.record(c), s: c.pl.sess}
		if c.room != nil {
			c.room.removeChar(c)
		}
		z.forget(c)
		leavers = append(leavers, l)
		recs = append(recs, l.rec)
	}
	z.checkpoint(recs, true)
	if z.vm != nil {
		z.forgetLua()
		z.vm.Close()
	}
	for _, l := range leavers {
		z.handedBack(l.rec.Clone(), "stop")
		if l.s != nil {
			l.s.Close("The world is shutting down. Your character has been saved. See you soon!")
		}
	}
	z.flush()
}

// newRID allocates a runtime id, unique within this zone.
func (z *Zone) newRID() rid {
	z.nextRID++
	return z.nextRID
}

// newItemID allocates a durable item id from the zone's reserved block.
func (z *Zone) newItemID() uint64 {
	if z.itemIDs[0] == z.itemIDs[1] {
		const block = 256
		first := z.shard.ReserveItemIDs(block)
		z.itemIDs = [2]uint64{first, first + block}
	}
	id := z.itemIDs[0]
	z.itemIDs[0]++
	return id
}

// publishRoster rebuilds the roster other zones read for `who`.
//
// A zone of more than rosterEager players publishes at most once every
// rosterEvery pulses (a second): rebuilding a sorted roster of hundreds
// after every batch that moved someone was a tenth of a busy server's
// time, and once a pulse, in a world of zones of fifty to a hundred
// walkers, still a sixth of the bytes the server allocated
// (docs/PERFORMANCE.md, issue 25); `who` a second behind is as good. A
// smaller zone publishes at once.
func (z *Zone) publishRoster() {
	if !z.rosterOld {
		return
	}
	z.pop.Store(int32(len(z.players)))
	if len(z.players) > rosterEager && z.pulses.now-z.rosterPulse < rosterEvery {
		return // done this second; the next flush after it publishes
	}
	z.rosterOld = false
	z.rosterPulse = z.pulses.now
	list := make([]RosterEntry, 0, len(z.players))
	now := time.Now()
	for _, c := range z.sortedPlayers() {
		list = append(list, RosterEntry{
			Name: c.name, Title: c.pl.title, Level: c.level, Zone: z.proto.Name,
			LinkDead: c.pl.linkDead, Admin: c.pl.admin, Invis: z.invisLevel(c), Idle: now.Sub(c.pl.lastInput),
		})
	}
	z.roster.Store(&list)
}

// rosterEager is the most players a zone publishes its roster for after
// every batch that changed it.
const rosterEager = 32

// rosterEvery is the fewest pulses between two publications of a roster
// of more than rosterEager players.
const rosterEvery = 4

// ScriptStats is the zone's Lua VM's counters as of the last second it was
// busy; ok is false for a zone without scripts.
func (z *Zone) ScriptStats() (script.Stats, bool) {
	if st := z.luaStats.Load(); st != nil {
		return *st, true
	}
	return script.Stats{}, false
}

// Dormant reports whether the zone has stopped its ticker because nobody
// is in it and nothing is due soon.
func (z *Zone) Dormant() bool { return z.sleeping.Load() }

// Pulses is the number of pulses ticked so far.
func (z *Zone) Pulses() uint64 { return z.pulseNo.Load() }

// holds reports whether c is a live character of this zone: not dead, not
// departed, not another zone's.
func (z *Zone) holds(c *Char) bool { return c != nil && c.home == z }
