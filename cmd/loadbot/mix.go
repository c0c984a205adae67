package main

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
)

// The mix scenario: each turn a bot does one thing of a weighted mix, as
// players of a real world do: walks on, looks, talks in the room, says a
// line on gossip, fights what it can beat (kill, and flee while fighting),
// or trades at a shop (list, buy the cheapest thing, sell what it bought).
// A bot fights only prey it saw in the room's listing (-prey names them)
// and trades only where it saw a shopkeeper (-keepers); elsewhere a fight
// or a trade turn is a step on, to find one. Every command kind is counted
// on its own (a series: successes' round trips, refusals).

// Mix kinds, in the order of -mix.
const (
	mixWalk = iota
	mixLook
	mixSay
	mixGossip
	mixFight
	mixShop
	mixKinds
)

var mixNames = [mixKinds]string{"walk", "look", "say", "gossip", "fight", "shop"}

// DefaultMix is the mix scenario's -mix: mostly walking, looking and
// talking; a fifth of the turns a fight and a sixth a trade, each a step
// on where there is nothing to fight or no shop. Gossip is rare, as on a
// real game: at 10,000 players every 2 s it is 2.5 lines a second in all,
// each read by all 10,000.
const DefaultMix = "walk=30,look=20,say=15,gossip=0.05,fight=20,shop=15"

// DefaultPrey and DefaultKeepers are the kinds of mob the Circle world
// generator (content/circle/gen_test.go) makes weak enough for a new
// character, and its shopkeepers.
const (
	DefaultPrey    = "rat,dog,crow,cat"
	DefaultKeepers = "baker,smith,grocer"
)

// Mix is the mix scenario's shape.
type Mix struct {
	Weights [mixKinds]float64
	Prey    []string // words of mobs to fight, as the room listing shows them
	Keepers []string // words of shopkeepers
}

// ParseMix reads "kind=weight,...": kinds left out weigh 0.
func ParseMix(s string) ([mixKinds]float64, error) {
	var w [mixKinds]float64
	total := 0.0
	for _, e := range strings.Split(s, ",") {
		e = strings.TrimSpace(e)
		if e == "" {
			continue
		}
		k, v, ok := strings.Cut(e, "=")
		i := slices.Index(mixNames[:], strings.TrimSpace(k))
		if !ok || i < 0 {
			return w, fmt.Errorf("-mix: %q is not kind=weight (kinds: %s)", e, strings.Join(mixNames[:], ", "))
		}
		f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if err != nil || !(f >= 0) || f > 1e9 {
			return w, fmt.Errorf("-mix: %q: the weight is a number from 0 up", e)
		}
		w[i] = f
		total += f
	}
	if !(total > 0) {
		return w, fmt.Errorf("-mix %q: the weights add up to nothing", s)
	}
	return w, nil
}

// Words splits a comma-separated list of words.
func Words(s string) []string {
	var out []string
	for _, w := range strings.Split(s, ",") {
		if w = strings.ToLower(strings.TrimSpace(w)); w != "" {
			out = append(out, w)
		}
	}
	return out
}

func (m *Mix) validate() error {
	for _, w := range append(slices.Clone(m.Prey), m.Keepers...) {
		if strings.ContainsFunc(w, func(r rune) bool { return !('a' <= r && r <= 'z') }) {
			return fmt.Errorf("-prey and -keepers are words of letters: %q", w)
		}
	}
	if m.Weights[mixFight] > 0 && len(m.Prey) == 0 {
		return fmt.Errorf("-mix fights, but -prey names nothing to fight")
	}
	if m.Weights[mixShop] > 0 && len(m.Keepers) == 0 {
		return fmt.Errorf("-mix trades, but -keepers names no shopkeeper")
	}
	return nil
}

// mixPlan is a run's mix, ready to send; shared read-only (the series
// count atomically).
type mixPlan struct {
	cum                         [mixKinds]float64 // cumulative weights
	fraction                    [mixKinds]float64 // each kind's share of the turns
	walk, look, say             cmdSpec
	kill, flee, list, buy, sell cmdSpec
	gossip                      *series // the gossip lines are each bot's own (its name marks the answer)
	seeing                      *seeing
}

func newMixPlan(m *Mix, r *run) *mixPlan {
	p := &mixPlan{seeing: newSeeing(m.Prey, m.Keepers)}
	total := 0.0
	for i, w := range m.Weights {
		total += w
		p.cum[i] = total
	}
	for i, w := range m.Weights {
		p.fraction[i] = w / total
	}
	ser := func(name string) *series {
		s := &series{name: name}
		r.series = append(r.series, s)
		return s
	}
	spec := func(name, line string, markers ...string) cmdSpec {
		s := newSpec(Command{Line: line, Markers: markers})
		s.series = ser(name)
		return s
	}
	p.walk = spec("walk", ExitLine, moveMarkers...)
	p.look = spec("look", "look", "Exits:")
	p.say = spec("say", "say hello", "You say")
	// The argument (the prey, the goods) is added when it is sent.
	p.kill = spec("kill", "kill", "You attack", "nobody here", "doing your best", "place of peace", "can fight",
		"protection of the gods", "may only fight", "You cannot", "You are asleep")
	p.flee = spec("flee", "flee", "You flee", "PANIC", "not fighting", "cannot flee")
	p.list = spec("list", "list", " sells:", "We are closed", "no shop here")
	p.buy = spec("buy", "buy", "You buy", " gold; you have ", "sells nothing called", "sold the last", "no more of those",
		"cannot carry", "We are closed", "no shop here")
	p.sell = spec("sell", "sell", "You sell", "do not have", "carry nothing", "does not buy", "worth nothing",
		"no room for more", "cannot carry", "We are closed", "no shop here", "remove it first", "Sell what")
	if m.Weights[mixGossip] > 0 {
		p.gossip = ser("gossip")
	}
	return p
}

// pick chooses a kind by weight.
func (p *mixPlan) pick(rng *rand.Rand) int {
	x := rng.Float64() * p.cum[mixKinds-1]
	for i, c := range p.cum {
		if x < c {
			return i
		}
	}
	return mixWalk
}

// seen is what a bot last saw of its room: published by the reader.
type seen struct {
	prey   string // a mob to fight, or ""
	keeper bool   // a shopkeeper stands here
	goods  string // the word of the cheapest thing the shop here listed, or ""
	price  int    // what goods costs
}

// seeing is the words a bot looks for in a room's listing; shared
// read-only.
type seeing struct {
	prey, keepers [][]byte
}

func newSeeing(prey, keepers []string) *seeing {
	s := &seeing{}
	for _, w := range prey {
		s.prey = append(s.prey, []byte(w))
	}
	for _, w := range keepers {
		s.keepers = append(s.keepers, []byte(w))
	}
	return s
}

// hasWord reports whether line holds w as a whole word, in any case.
func hasWord(line, w []byte) bool {
	for i := 0; i+len(w) <= len(line); {
		j := indexFold(line[i:], string(w))
		if j < 0 {
			return false
		}
		j += i
		before := j == 0 || !isLetter(line[j-1])
		after := j+len(w) == len(line) || !isLetter(line[j+len(w)])
		if before && after {
			return true
		}
		i = j + 1
	}
	return false
}

func isLetter(c byte) bool { return 'a' <= c|0x20 && c|0x20 <= 'z' }

// mixState is the reader's view of the room and the fight, for the mix.
type mixState struct {
	see     *seeing
	inRoom  bool // between a room's exits line and the next prompt: its listing
	inList  bool // between a shop's "... sells:" and the next prompt
	cur     seen
	best    int   // the cheapest price of the list so far
	dirty   bool  // cur changed since the bot last published it
	fight   bool  // the bot attacked and has not seen the fight end
	fightCh bool  // fight changed since the bot last published it
	held    int32 // things bought less things sold, not yet published
	gold    int64 // gold taken, earned and spent, not yet published
	deaths  int64 // times slain
	kills   int64 // deaths seen in the room while the bot fought
}

var promptText = []byte("> ")

// exits is called at a room's exits line: a new listing begins.
func (m *mixState) exits() {
	m.inRoom, m.inList = true, false
	m.cur = seen{}
	m.dirty = true
}

// prompt ends a listing.
func (m *mixState) prompt() { m.inRoom, m.inList = false, false }

// line reads one line of text that was not an exits line.
func (m *mixState) line(l []byte) {
	t := bytes.TrimSpace(l)
	// The answer to a command follows its prompt on the same line.
	for bytes.HasPrefix(t, promptText) {
		t = bytes.TrimSpace(t[len(promptText):])
	}
	switch {
	case bytes.HasPrefix(t, []byte("You attack ")):
		m.setFight(true)
		return
	case bytes.Contains(t, []byte(" is DEAD!")):
		// Somebody's kill here: the bot's own fight, or its prey gone.
		if m.fight {
			m.kills++
		}
		m.setFight(false)
		m.cur.prey, m.dirty = "", true
		return
	case bytes.HasPrefix(t, []byte("You flee ")), bytes.HasPrefix(t, []byte("You are not fighting")):
		m.setFight(false)
		return
	case bytes.HasPrefix(t, []byte("PANIC!")), bytes.Contains(t, []byte("Flee first")):
		m.setFight(true) // still in it, whatever the bot thought
		return
	case bytes.HasPrefix(t, []byte("There is nobody here by that name")), bytes.HasPrefix(t, []byte("This is a place of peace")),
		bytes.Contains(t, []byte("is not someone you can fight")):
		// A kill refused: the prey is not one to fight here.
		m.cur.prey, m.dirty = "", true
		return
	case bytes.HasPrefix(t, []byte("You have been slain")):
		m.setFight(false)
		m.deaths++
		return
	case bytes.HasPrefix(t, []byte("You take ")):
		// "You take 10 gold coins from the body."
		m.gold += goldIn(t, "You take ")
		return
	case bytes.HasPrefix(t, []byte("You buy ")):
		// "You buy a quiet bread for 12 gold."
		m.held++
		m.gold -= goldIn(t, " for ")
		return
	case bytes.HasPrefix(t, []byte("You sell ")):
		m.held--
		m.gold += goldIn(t, " for ")
		return
	case bytes.HasSuffix(t, []byte(" sells:")):
		m.inList, m.best = true, -1
		m.cur.goods = ""
		m.dirty = true
		return
	}
	if m.inList {
		// "  a quiet bread                 12 gold (plenty)"
		i := bytes.Index(t, []byte(" gold ("))
		if i < 0 {
			m.inList = false
			return
		}
		f := bytes.Fields(t[:i])
		if len(f) < 2 {
			return
		}
		price, err := strconv.Atoi(string(f[len(f)-1]))
		if err != nil {
			return
		}
		if m.best < 0 || price < m.best {
			m.best = price
			m.cur.goods = strings.ToLower(string(f[len(f)-2]))
			m.cur.price = price
			m.dirty = true
		}
		return
	}
	if !m.inRoom || containsFold(t, "corpse") {
		return // not the listing, or a dead one's body ("The corpse of a rat lies here.")
	}
	if m.cur.prey == "" {
		for _, w := range m.see.prey {
			if hasWord(t, w) {
				m.cur.prey, m.dirty = string(w), true
				break
			}
		}
	}
	if !m.cur.keeper {
		for _, w := range m.see.keepers {
			if hasWord(t, w) {
				m.cur.keeper, m.dirty = true, true
				break
			}
		}
	}
}

func (m *mixState) setFight(on bool) {
	if m.fight != on {
		m.fight, m.fightCh = on, true
	}
}

// takeSeen publishes what the stream saw of the room and the fight for
// the sender.
func (b *bot) takeSeen() {
	m := b.s.mix
	if m == nil {
		return
	}
	if m.dirty {
		v := m.cur
		b.seen.Store(&v)
		m.dirty = false
	}
	if m.fightCh {
		b.fighting.Store(m.fight)
		m.fightCh = false
	}
	if m.held != 0 {
		b.held.Add(m.held)
		m.held = 0
	}
	if m.gold != 0 {
		b.gold.Add(m.gold)
		m.gold = 0
	}
}

// goldIn reads the number after the last after in t: "for 12 gold" is 12;
// 0 if there is none.
func goldIn(t []byte, after string) int64 {
	i := bytes.LastIndex(t, []byte(after))
	if i < 0 {
		return 0
	}
	f := bytes.Fields(t[i+len(after):])
	if len(f) == 0 {
		return 0
	}
	n, err := strconv.ParseInt(string(f[0]), 10, 64)
	if err != nil || n < 0 {
		return 0
	}
	return n
}

// sendMix sends one turn of the mix. It reports false if the connection
// is broken.
func (b *bot) sendMix() bool {
	p := b.r.mix
	var v seen
	if s := b.seen.Load(); s != nil {
		v = *s
	}
	kind := p.pick(b.rng)
	switch {
	case kind != mixWalk:
	case v.prey != "" && !b.fighting.Load() && p.fraction[mixFight] > 0:
		// A player out hunting attacks what it came for.
		kind = mixFight
	case v.keeper && b.tradesHere < shopStay && p.fraction[mixShop] > 0:
		// A player at a shop trades a few times before walking on.
		kind = mixShop
	}
	switch kind {
	case mixLook:
		return b.sendSpec(&p.look)
	case mixSay:
		return b.sendSpec(&p.say)
	case mixGossip:
		return b.sendSpec(&b.gossip)
	case mixFight:
		if b.fighting.Load() {
			// Most fights are fought out; a third of the fighting
			// turns run.
			if b.rng.IntN(3) == 0 {
				return b.sendSpec(&p.flee)
			}
			return b.sendSpec(&p.look)
		}
		if v.prey != "" {
			return b.sendArg(&p.kill, v.prey)
		}
	case mixShop:
		if !v.keeper {
			break
		}
		b.tradesHere++
		rich := v.goods != "" && b.gold.Load() >= int64(v.price)
		switch {
		case b.bought != "" && b.held.Load() > 0 && (!rich || b.rng.IntN(2) == 0):
			// What it bought last, wherever that was: another shop of
			// the kind buys it back.
			return b.sendArg(&p.sell, b.bought)
		case !rich || b.rng.IntN(4) == 0:
			// The list, to see what there is and what it costs; a
			// player with too little gold only looks.
			return b.sendSpec(&p.list)
		default:
			b.bought = v.goods
			return b.sendArg(&p.buy, v.goods)
		}
	}
	b.tradesHere = 0
	return b.sendSpec(&p.walk)
}

// shopStay is how many trades a bot makes at a shop it walked into before
// its walking turns walk on.
const shopStay = 3

// fleeAll has a bot of the mix flee until it is out of any fight, so that
// it can quit (the server refuses a fighter's quit). The first flee is
// sent whatever the bot thinks, since a fight can start without its
// knowing (a mob's friend joining in); the answer says. It gives up after
// a few tries.
func (b *bot) fleeAll() {
	p := b.r.mix
	if p == nil {
		return
	}
	for i := range 10 {
		if i > 0 && !b.fighting.Load() || !b.do(context.Background(), &p.flee) {
			return
		}
	}
}

// sendArg sends c's line with one more word.
func (b *bot) sendArg(c *cmdSpec, arg string) bool {
	b.argBuf = append(append(append(b.argBuf[:0], bytes.TrimRight(c.line, "\r\n")...), ' '), arg...)
	b.argBuf = append(b.argBuf, "\r\n"...)
	return b.sendLine(c, b.argBuf)
}
