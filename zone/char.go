package zone

import (
	"time"

	"zonemud/content"
	"zonemud/content/quest"
	"zonemud/internal/mail"
)

// rid is a runtime id: unique within one zone, reassigned when an entity
// moves to another zone. Two instances of one template allocate rids in the
// same order, so a rid means nothing outside the zone that issued it.
type rid uint64

// Char is a character: a player (pl != nil) or a mob (mob != nil).
// Zone goroutine only.
type Char struct {
	rid  rid
	home *Zone  // the zone whose indexes hold it; nil once it has left or died
	name string // a player's name; a mob's short description
	pl   *Player
	mob  *content.Mob
	room *Room
	// staffIn and followIn are whether c counts in its room's nstaff and
	// nfollow.
	staffIn, followIn bool
	inv               []*Item
	eq                []*Item // by slot index of the game data; nil where empty

	level, exp int
	hp, maxHP  int
	mana, maxM int
	mv, maxMv  int
	gold       int

	// Game state (combat.go, affect.go, stats.go).
	attrs     []int // base attributes, by game attribute index (players)
	st        stats // derived numbers, recomputed by recalc
	pos       position
	fighting  *Char
	hunting   *Char // a stalker's prey that fled
	affects   []*affect
	cooldown  map[string]uint64 // ability -> pulse it is ready again
	lagUntil  uint64            // pulse before which the character cannot act
	protected uint64            // pulse before which nobody may attack it
	acc       [3]int            // regeneration carried between pulses (hp, mana, moves), in 1/40ths
	regen     [3]int            // regeneration per ten seconds standing, from recalc
	ticker    pulseHandle       // per-character pulse: affects, regeneration, lag
	lastHit   string            // who last hurt it, for death messages

	reset   *content.Reset // the reset that spawned this mob
	shop    *shopState     // a shopkeeper's running shop (shop.go)
	wander  pulseHandle
	created int64

	// recItems is the saved form of everything c carries, built by record
	// and reused while nothing c carries changes, so a checkpoint of an
	// unchanged inventory copies a slice header, not twenty items. It is
	// never modified once built (the saver may be reading it); any change
	// to what c carries drops it (itemsChanged).
	recItems []ItemRecord
	recValid bool
}

// Player is what only a player's character has.
type Player struct {
	sess       Session
	appliedSeq uint64
	out        []byte
	queued     bool      // output waits for a flush (flush list or heap)
	episode    uint64    // the zone's number of the wait queued belongs to
	waits      int       // entries of the zone's flush heap naming this player
	urgent     bool      // the output answers the player: flush it now
	lazy       bool      // all that waits is news: comings and goings, channel lines (newsGap)
	lastFlush  time.Time // when the zone last handed output to the session
	linkDead   bool
	reap       pulseHandle
	lastInput  time.Time
	inputAt    time.Time // when the first line not yet answered was posted; zero if none
	arrived    time.Time
	title      string
	admin      bool
	builder    bool
	buildZones []string  // a builder limited to these zones; empty is every zone
	frozen     bool      // an admin froze the player: only quit works (saved)
	logged     bool      // every line the player types is logged
	snoopers   []snooper // admins watching the player's screen
	settings   Settings
	comm       commState // channels, ignores, afk, aliases, rates (comm.go)
	quests     quest.Log // quests under way and done (quest.go)
	replyTo    string
	commands   uint64
	played     int64
	// anchorZone and anchorRoom are the door an instance copy was entered
	// by, set at entry and cleared on arrival in any other zone; every
	// save in between carries them.
	anchorZone string
	anchorRoom string
	// opening is the token of the copy this player asked for and waits
	// on (0: none); openingRoom is the room it asked in, openingDeaths
	// its deaths then, openingDir the way it went.
	opening       uint64
	openingRoom   *Room
	openingDeaths uint32
	openingDir    string
	deaths        uint32 // times died since arriving in the world
	following     string // the player this one walks after, "" for none
	epoch         uint64
	arrival       uint64
	// ver counts changes to the character; savedVer is the ver of its last
	// committed save on this arrival, and savedAt when that save committed;
	// queuedVer is the ver of the last batch it went to the saver in
	// (committed or not yet).
	ver, savedVer, queuedVer uint64
	savedAt                  time.Time
	// heldPrint is holdingsPrint of the character as its last queued
	// record had it, if heldKnown (a failed batch forgets it): a walk out
	// of the zone leaves behind a dirty stayer whose holdings did not
	// change since then for the zone's next periodic checkpoint.
	heldPrint uint64
	heldKnown bool
	// lastVitals is what Char.Vitals last told the client.
	lastVitals gmcpVitals
	// gmcpHeld is what GMCP says of the text in out (Comm.Channel.Text of a
	// say, a tell, a channel line), sent with it in one burst (holdGMCP).
	gmcpHeld []heldGMCP
	// party: the player is in a party (the world's Group.Info said so, or
	// the group command here made it); partyPub is what this player last
	// published to it (party.go).
	party    bool
	partyPub PartyMember
	// draft is the letter being written (mail NAME), nil when none: every
	// line typed goes to it until it is sent or given up (cmd_mail.go).
	draft *mail.Draft
	// pending holds lines typed while lagged or awaiting an answer, run as
	// the lag ends or the answer comes.
	pending []string
	// chain holds the commands of a line that chained them (or ran an
	// alias) still to run, in order, before anything in pending; they go
	// with the player into another zone (runChain).
	chain []string
	// await names the answer (later) the last command waits for; 0 when
	// none. Its prompt, and the lines typed after it, wait for it.
	await uint64
	// refused counts the moves scripts refused in a row (scriptCommand).
	refused refusals
	// kept counts, per command of escapeCommands, the times in a row
	// scripts have taken it (swallowed); nil until one has.
	kept map[string]int
}

// handOver moves everything c is into a new Char for another zone to own,
// and leaves c an empty shell that has left: its carried items now point at
// the new value. The caller has already taken c out of its indexes.
func (c *Char) handOver() *Char {
	nc := new(Char)
	*nc = *c
	nc.home, nc.room = nil, nil
	nc.ticker, nc.wander = pulseHandle{}, pulseHandle{}
	if nc.pl != nil {
		// The link-dead reap was this zone's timer (forget cancelled
		// it); the next zone must not touch it, or it writes to this
		// zone's scheduler from its own goroutine.
		nc.pl.reap = pulseHandle{}
		// The wait for an answer was this zone's too: its answer still
		// finds the player there, with a prompt of its own.
		nc.pl.await = 0
	}
	nc.fighting, nc.hunting = nil, nil
	for _, it := range nc.carried() {
		it.carrier = nc
	}
	*c = Char{rid: c.rid, name: c.name}
	return nc
}

// backlog reports whether commands wait to run: lines typed meanwhile,
// or the rest of a chain.
func (p *Player) backlog() bool { return len(p.pending) > 0 || len(p.chain) > 0 }

// maxPending caps the lines held while a character is lagged.
const maxPending = 20

// stateWord names what the character is doing, for GMCP Char.Status.
func (c *Char) stateWord() string {
	if c.fighting != nil {
		return "fighting"
	}
	return c.pos.String()
}

// keywords are what other players type to target c.
func (c *Char) keywords() []string {
	if c.mob != nil {
		return c.mob.Keywords
	}
	return nil
}

// short is how c appears in a sentence: "Aria", "a giant rat".
func (c *Char) short() string { return c.name }

// long is c's line in a room listing.
func (c *Char) long() string {
	if c.mob != nil {
		return c.mob.Long
	}
	return string(appendPlayerLong(nil, c))
}

// appendLong appends capFirst(c.long()) to b. A player's line is built
// in place, without the string long makes, when its first letter is a
// capital already, as a player's name is: a room listing shows every
// character there on every look and every step into the room.
func appendLong(b []byte, c *Char) []byte {
	if c.mob != nil || c.name == "" || c.name[0] < 'A' || c.name[0] > 'Z' {
		return append(b, capFirst(c.long())...)
	}
	return appendPlayerLong(b, c)
}

// appendPlayerLong appends a player's line in a room listing to b.
func appendPlayerLong(b []byte, c *Char) []byte {
	b = append(b, c.name...)
	if c.pl.title != "" {
		b = append(b, ' ')
		b = append(b, c.pl.title...)
	}
	b = append(b, " is here."...)
	if c.pl.linkDead {
		b = append(b, " (link-dead)"...)
	}
	return b
}

// newPlayerChar builds a player's character from its record. Items are
// built and given rids by the caller through adoptItems.
func (z *Zone) newPlayerChar(rec *CharRecord) *Char {
	c := &Char{
		name: rec.Name, level: min(max(rec.Level, 1), z.set.Game.MaxLevel), exp: max(rec.Exp, 0),
		hp: rec.HP, mana: rec.Mana, mv: rec.Moves, gold: max(rec.Gold, 0),
		created: rec.Created, attrs: z.attrsFromRecord(rec.Attrs),
		pl: &Player{
			title: rec.Title, admin: rec.Admin, settings: rec.Settings,
			builder: rec.Builder, buildZones: rec.BuildZones, frozen: rec.Frozen,
			commands: rec.Commands, played: rec.Played,
			anchorZone: rec.AnchorZone, anchorRoom: rec.AnchorRoom,
			epoch: rec.Epoch, arrival: rec.Arrival,
			lastInput: time.Now(), arrived: time.Now(),
		},
	}
	c.eq = make([]*Item, len(z.set.Game.Slots))
	for _, ir := range rec.Items {
		it := z.itemFromRecord(ir)
		if it == nil {
			continue
		}
		if ir.Slot != "" {
			if i := z.slotIndex(ir.Slot); i >= 0 && c.eq[i] == nil {
				it.carrier, it.slot = c, i
				c.eq[i] = it
				continue
			}
		}
		it.carrier = c
		c.inv = append(c.inv, it)
	}
	for _, ar := range rec.Affects {
		if a := z.set.Game.Affects[ar.Name]; a != nil && ar.Pulses > 0 {
			c.affects = append(c.affects, &affect{a: a, left: min(ar.Pulses, a.Pulses*max(1, a.MaxStacks)), stacks: min(max(ar.Stacks, 1), a.MaxStacks)})
		}
	}
	c.pl.comm = newCommState(rec.Comm)
	c.pl.quests = questLog(rec.Quests)
	z.recalc(c)
	if rec.HP <= 0 || c.hp > c.maxHP {
		c.hp = c.maxHP
	}
	if rec.Mana <= 0 || c.mana > c.maxM {
		c.mana = c.maxM
	}
	if rec.Moves <= 0 || c.mv > c.maxMv {
		c.mv = c.maxMv
	}
	return c
}

// record writes c's durable state into a record.
func (z *Zone) record(c *Char) *CharRecord {
	p := c.pl
	rec := &CharRecord{
		Name: c.name, Created: c.created, Played: p.played + int64(time.Since(p.arrived)/time.Second),
		Commands: p.commands, Title: p.title, Admin: p.admin,
		Builder: p.builder, BuildZones: p.buildZones, Frozen: p.frozen,
		Level: c.level, Exp: c.exp, HP: c.hp, Mana: c.mana, Moves: c.mv, Gold: c.gold,
		Settings: p.settings, Epoch: p.epoch, Arrival: p.arrival,
		AnchorZone: p.anchorZone, AnchorRoom: p.anchorRoom,
		Attrs: z.attrsRecord(c), Comm: p.comm.record(), Quests: questRecord(&p.quests),
	}
	for _, a := range c.affects {
		rec.Affects = append(rec.Affects, AffectRecord{Name: a.a.Name, Pulses: a.left, Stacks: a.stacks})
	}
	if c.room != nil {
		rec.Room = c.room.proto.Ref
		rec.Zone = z.id
	}
	if !c.recValid {
		var items []ItemRecord
		for i, it := range c.eq {
			if it != nil {
				ir := itemRecord(it)
				ir.Slot = z.set.Game.Slots[i].Name
				items = append(items, ir)
			}
		}
		for _, it := range c.inv {
			items = append(items, itemRecord(it))
		}
		c.recItems, c.recValid = items, true
	}
	rec.Items = c.recItems
	return rec
}

func (z *Zone) slotIndex(name string) int {
	for i, s := range z.set.Game.Slots {
		if s.Name == name {
			return i
		}
	}
	return -1
}

// carried lists everything c holds, worn and carried, top level only.
func (c *Char) carried() []*Item {
	out := make([]*Item, 0, len(c.inv)+2)
	for _, it := range c.eq {
		if it != nil {
			out = append(out, it)
		}
	}
	return append(out, c.inv...)
}
