package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

const (
	// readBufSize is each bot's bufio.Reader. A room description fits; a
	// longer burst takes two reads, which costs nothing here.
	readBufSize = 4096
	// readPoll bounds each read of a logged-in bot, so a reader notices a
	// close it missed; a quiet connection is not an error.
	readPoll = 10 * time.Second
)

var quitLine = []byte("quit\r\n")

// bot is one simulated player: a connection, a reader goroutine and a send
// loop. It costs a bufio.Reader, two goroutines and a few hundred bytes, so
// ten thousand fit in a few hundred megabytes.
type bot struct {
	r    *run // shared, read-only
	idx  int
	name string

	// Written by the bot goroutine while logging in, before the reader starts;
	// read by summarize after the bot returns.
	connected      bool
	loggedIn       bool
	byKey          bool          // SSH: the key logged the bot in
	keyAdded       bool          // SSH: the bot registered the key in game
	walked         int           // steps taken away from the start room
	loginTime      time.Duration // dial to first prompt
	failure        string        // why connecting or logging in failed; "" if it did not
	failureExample string

	conn link // safe for the concurrent writes of reader and sender
	br   *bufio.Reader
	s    stream // bot goroutine while logging in, then reader goroutine only

	// atomic: the unanswered command as sendTime<<1 | inWindow, sendTime in
	// run.mono() nanoseconds, or 0. The sender stores it before writing; the
	// reader (answer, disconnect) or the sender (timeout) clears it with a
	// compare-and-swap, and whoever clears it counts it, so each command is
	// counted exactly once.
	outstanding atomic.Int64
	// outCmd is the outstanding command, stored before outstanding.
	outCmd      atomic.Pointer[cmdSpec]
	exits       atomic.Pointer[[]string] // the exits of the room last seen; written by the reader
	closing     atomic.Bool              // the bot is ending the connection itself
	answered    chan struct{}            // capacity 1; the reader nudges a waiting sender
	readerDone  chan struct{}            // closed when the reader returns
	readerEnded atomic.Int64             // run.mono() when the server closed the connection; 0 before

	// The mix scenario: what the reader last saw of the room (nil before
	// it saw one), whether the bot is fighting, how many things it bought
	// and has not sold, and its gold; the reader writes them.
	seen       atomic.Pointer[seen]
	fighting   atomic.Bool
	held       atomic.Int32
	gold       atomic.Int64 // gold the bot took, earned and spent
	bought     string       // sender only: the word of the last thing it bought
	tradesHere int          // sender only: trades since its last step
	argBuf     []byte       // sender only: a command with its argument

	rng       *rand.Rand // sender only
	lastDir   string     // sender only: the way the last step went
	sayBuf    []byte     // sender only: a stamped say
	gossip    cmdSpec    // with Config.Channel: this bot's gossip line
	sendStats struct {   // sender only
		sent, timeouts, skipped int64
	}
	readStats struct { // reader only
		answered, lost, unsolicited int64
		disconnected                bool
		samples                     []sample // only with -csv
	}
	quitSent       int64 // bot goroutine: run.mono() when quit was sent; 0 if never
	farewellMissed bool  // bot goroutine: the server did not close within QuitWait
}

// sample is one round trip for the CSV file.
type sample struct {
	sent int64 // run.mono() nanoseconds
	rtt  int64 // nanoseconds
}

func newBot(r *run, idx int) *bot {
	b := &bot{
		r:          r,
		idx:        idx,
		name:       botName(r.cfg.Prefix, idx),
		answered:   make(chan struct{}, 1),
		readerDone: make(chan struct{}),
		rng:        rand.New(rand.NewPCG(r.cfg.Seed, uint64(idx))),
	}
	b.s.dec.gmcp = r.cfg.GMCP
	if r.gossips() {
		// Every bot reads every gossip line: the bot's own, with its name,
		// is its answer; a refusal of the channel's rate is one too.
		b.gossip = cmdSpec{line: []byte("gossip hello\r\n"), channel: true,
			markers: [][]byte{[]byte(gossipFrom(b.name)), []byte("talking too fast"), []byte("turned off")}}
		if r.mix != nil {
			b.gossip.series = r.mix.gossip
		}
	}
	return b
}

// gossipFrom is what starts name's lines on gossip after the colour:
// "[Gossip] Botab: ".
func gossipFrom(name string) string { return gossipTag + name + ": " }

const gossipTag = "[Gossip] "

// run logs the bot in, registers its key and walks away from the start
// room if the run asks for it, calls logins.Done, and if all that worked,
// sends commands until the run stops, then quits.
func (b *bot) run(ctx context.Context, logins *sync.WaitGroup) {
	ok := b.login(ctx)
	if ok {
		b.r.loggedIn.Add(1)
		go b.read() // tracked: quit waits for readerDone
		ok = b.prepare(ctx)
	}
	logins.Done()
	if !ok {
		if b.conn != nil {
			b.conn.Close()
			if b.loggedIn {
				<-b.readerDone
			}
		}
		return
	}
	b.send()
	b.quit()
}

// prepare gets a logged-in bot ready: over SSH, the key goes on the account
// if the key did not log it in; then the walk. It reports false, with
// b.failure set, if the bot cannot go on.
func (b *bot) prepare(ctx context.Context) bool {
	r := b.r
	if r.key != nil && !b.byKey {
		if !b.do(ctx, &r.keyAdd) {
			b.failure = "no answer to sshkey add"
			return false
		}
		b.keyAdded = true
	}
	for range r.cfg.Walk {
		if !b.do(ctx, &r.step) {
			if ctx.Err() != nil {
				return false
			}
			b.failure = "no answer to a step while walking away"
			if b.cutOff() {
				b.failure = "cut off by the server while walking away"
			}
			return false
		}
		b.walked++
	}
	for i := range r.path {
		if !b.do(ctx, &r.path[i]) {
			if ctx.Err() == nil {
				b.failure = "no answer on the path: " + strings.TrimSpace(string(r.path[i].line))
			}
			return false
		}
	}
	if r.cfg.Tree.Depth > 0 {
		// Only the next room's exits line is the answer: a refused step
		// means the world is not the tree the bots were told of, and the
		// bot fails instead of measuring where it does not belong.
		for _, step := range r.cfg.Tree.TreePath(b.idx) {
			spec := newSpec(Command{Line: step, Markers: []string{"Exits:"}})
			if !b.do(ctx, &spec) {
				if ctx.Err() == nil {
					b.failure = "no way on to its leaf: " + step + " (is the world the tree of -tree?)"
				}
				return false
			}
			b.walked++
		}
	}
	return true
}

// cutOff reports whether the server closed the connection (its reader
// ended) while the bot was not quitting: for the failure's reason.
func (b *bot) cutOff() bool {
	select {
	case <-b.readerDone:
		return !b.closing.Load()
	default:
		return false
	}
}

// do sends one command outside the measured window and waits for its
// answer. It reports false if none came within the reply timeout.
func (b *bot) do(ctx context.Context, c *cmdSpec) bool {
	if !b.sendSpec(c) {
		return false
	}
	t := time.NewTimer(b.r.cfg.ReplyTimeout)
	defer t.Stop()
	for {
		select {
		case <-b.answered:
			if b.outstanding.Load() == 0 {
				return true
			}
		case <-b.readerDone:
			return false
		case <-ctx.Done():
			return false
		case <-t.C:
			b.outstanding.Store(0)
			return false
		}
	}
}

// Login steps, each named for the failure messages.
type loginStep int

const (
	stepName     loginStep = iota // waiting for a line containing "name"
	stepNameSent                  // waiting for "(y/n)" or "password"
	stepPassword                  // new character: waiting for "password"
	stepAgain                     // new character: waiting for "again"
	stepPrompt                    // waiting for the first prompt
)

func (s loginStep) String() string {
	return [...]string{
		stepName:     "before the name question",
		stepNameSent: "after sending the name",
		stepPassword: "after confirming the new name",
		stepAgain:    "after sending the password",
		stepPrompt:   "before the first prompt",
	}[s]
}

// loginFailures are the server lines that end a login.
var loginFailures = []string{"refused", "wrong password", "too many"}

// login dials and answers the server's questions until the first prompt. It
// reports false, with b.failure set unless ctx ended, when that fails.
func (b *bot) login(ctx context.Context) bool {
	cfg := &b.r.cfg
	start := time.Now()
	deadline := start.Add(cfg.LoginTimeout)
	step := stepName
	if b.r.key != nil {
		l, byKey, err := dialSSH(ctx, cfg.Addr, b.name, cfg.Password, b.r.key, deadline)
		if err != nil {
			if ctx.Err() == nil {
				b.failure, b.failureExample = "ssh connect: "+errClass(err), err.Error()
			}
			return false
		}
		b.conn, b.byKey = l, byKey
		step = stepNameSent // the SSH user name is the name
	} else if cfg.byWeb(b.idx) {
		l, err := dialWeb(ctx, cfg.WebAddr, deadline)
		if err != nil {
			if ctx.Err() == nil {
				b.failure, b.failureExample = "web connect: "+errClass(err), err.Error()
			}
			return false
		}
		b.conn = l
	} else {
		d := net.Dialer{Deadline: deadline}
		conn, err := d.DialContext(ctx, "tcp", cfg.Addr)
		if err != nil {
			if ctx.Err() == nil {
				b.failure, b.failureExample = "connect: "+errClass(err), err.Error()
			}
			return false
		}
		b.conn = tcpLink{conn}
	}
	conn := b.conn
	b.connected = true
	conn.SetDeadline(deadline)
	stop := context.AfterFunc(ctx, func() { conn.SetDeadline(time.Now()) })
	defer stop()

	b.br = bufio.NewReaderSize(conn, readBufSize)
	b.s.keep = true
	b.s.trackExits = b.r.trackExits
	b.s.hear = b.r.cfg.Hear
	if b.r.gossips() {
		b.s.own = []byte(gossipFrom(b.name))
	}
	if m := b.r.mix; m != nil {
		b.s.mix = &mixState{see: m.seeing}
	}
	fail := func(reason, example string) bool {
		if ctx.Err() == nil {
			b.failure, b.failureExample = reason, example
		}
		conn.Close()
		return false
	}
	var sentNow bool // the bot answered a question from this read
	answer := func(line string, next loginStep) error {
		b.s.sent()
		step, sentNow = next, true
		_, err := conn.Write([]byte(line + "\r\n"))
		return err
	}
	for {
		if _, err := b.br.Peek(1); err != nil {
			return fail(errClass(err)+" "+step.String(), err.Error())
		}
		chunk, _ := b.br.Peek(b.br.Buffered())
		prompts := b.s.feed(chunk)
		b.br.Discard(len(chunk))
		b.takeExits()
		b.takeSeen()
		if err := b.flushReply(); err != nil {
			return fail(errClass(err)+" "+step.String(), err.Error())
		}
		for _, k := range loginFailures {
			if i := indexFold(b.s.text, k); i >= 0 {
				return fail(fmt.Sprintf("server said %q %s", k, step), lineAt(b.s.text, i))
			}
		}
		text := b.s.text
		var err error
		sentNow = false
		switch step {
		case stepName:
			if containsFold(text, "name") {
				err = answer(b.name, stepNameSent)
			}
		case stepNameSent:
			switch {
			case containsFold(text, "(y/n)"):
				err = answer("y", stepPassword)
			case containsFold(text, "password"):
				err = answer(cfg.Password, stepPrompt)
			case b.r.key != nil && prompts > 0:
				// SSH, an account the key or password opened: no
				// question, straight into the world.
				step = stepPrompt
			}
		case stepPassword:
			if containsFold(text, "password") {
				err = answer(cfg.Password, stepAgain)
			}
		case stepAgain:
			if containsFold(text, "again") {
				err = answer(cfg.Password, stepPrompt)
			}
		}
		if step == stepPrompt && !sentNow {
			if prompts > 0 {
				elapsed := time.Since(start)
				if !stop() {
					return fail("interrupted", "") // ctx ended: not a failure
				}
				conn.SetDeadline(time.Time{})
				b.s.stopKeeping()
				b.loginTime, b.loggedIn = elapsed, true
				return true
			}
		}
		if err != nil {
			return fail(errClass(err)+" "+step.String(), err.Error())
		}
	}
}

// flushReply writes pending telnet negotiation answers.
func (b *bot) flushReply() error {
	if len(b.s.dec.reply) == 0 {
		return nil
	}
	_, err := b.conn.Write(b.s.dec.reply)
	b.s.dec.reply = b.s.dec.reply[:0]
	return err
}

// lineAt returns the line of text around index i, trimmed and capped.
func lineAt(text []byte, i int) string {
	start := bytes.LastIndexByte(text[:i], '\n') + 1
	end := len(text)
	if j := bytes.IndexByte(text[i:], '\n'); j >= 0 {
		end = i + j
	}
	line := strings.TrimSpace(string(text[start:end]))
	if len(line) > 120 {
		line = line[:120] + "..."
	}
	return line
}

// errClass names an I/O error briefly, without the addresses and ports that
// would make every bot's error distinct.
func errClass(err error) string {
	var ne net.Error
	switch {
	case errors.Is(err, context.Canceled):
		return "interrupted"
	case errors.Is(err, os.ErrDeadlineExceeded), errors.As(err, &ne) && ne.Timeout():
		return "timeout"
	case errors.Is(err, io.EOF):
		return "connection closed"
	}
	var errno syscall.Errno
	if errors.As(err, &errno) {
		return errno.Error()
	}
	return err.Error()
}

// jitter is one interval between commands: Every ±20%, uniformly.
func (b *bot) jitter() int64 {
	return int64(float64(b.r.cfg.Every) * (0.8 + 0.4*b.rng.Float64()))
}

// send is the bot's timer loop: it sends a command every jittered interval
// while none is outstanding, expires commands that get no prompt within the
// reply timeout, and when the run stops, waits for the last answer.
func (b *bot) send() {
	if b.r.cfg.InOrder {
		b.sendRounds()
		return
	}
	r := b.r
	timeout := int64(r.cfg.ReplyTimeout)
	// Start at a random point of the first interval so bots that logged in
	// together do not send together.
	next := r.mono() + int64(b.rng.Float64()*float64(r.cfg.Every))
	timer := time.NewTimer(time.Duration(next - r.mono()))
	defer timer.Stop()
	for {
		select {
		case <-r.stop:
			b.drain(timer)
			return
		case <-b.readerDone:
			return
		case <-timer.C:
		}
		now := r.mono()
		b.expire(now)
		if now >= next {
			next += b.jitter()
			if next <= now {
				next = now + b.jitter() // fell far behind: do not burst to catch up
			}
			if b.outstanding.Load() != 0 {
				// One command at a time, like a player waiting for the prompt.
				// A server slower than -every shows here and in the rate.
				if r.inWindow(now) {
					b.sendStats.skipped++
				}
			} else if !b.sendCommand() {
				return
			}
		}
		wake := next
		if out := b.outstanding.Load(); out != 0 {
			wake = min(wake, out>>1+timeout)
		}
		timer.Reset(time.Duration(wake - r.mono()))
	}
}

// sendRounds is send for a run InOrder: every jittered interval a round
// types each command in order, each as soon as the one before is answered
// (or timed out). A round longer than the interval starts the next one at
// once, counted as skipped sends, as send does for a slow answer.
func (b *bot) sendRounds() {
	r := b.r
	next := r.mono() + int64(b.rng.Float64()*float64(r.cfg.Every))
	timer := time.NewTimer(time.Duration(next - r.mono()))
	defer timer.Stop()
	for {
		select {
		case <-r.stop:
			return
		case <-b.readerDone:
			return
		case <-timer.C:
		}
		for i := range r.cmds {
			select {
			case <-r.stop:
				return
			default:
			}
			if !b.sendSpec(&r.cmds[i]) {
				return
			}
			b.drain(timer)
			select {
			case <-b.readerDone:
				return
			default:
			}
		}
		now := r.mono()
		next += b.jitter()
		if next <= now {
			if r.inWindow(now) {
				b.sendStats.skipped++
			}
			next = now + b.jitter()/4 // a little breath, not a burst
		}
		timer.Reset(time.Duration(next - now))
	}
}

// sendCommand writes one random command. It reports false if the connection
// is broken.
func (b *bot) sendCommand() bool {
	r := b.r
	if r.mix != nil {
		return b.sendMix()
	}
	if r.cfg.Channel > 0 && b.rng.Float64() < r.cfg.Channel {
		return b.sendSpec(&b.gossip)
	}
	return b.sendSpec(&r.cmds[b.rng.IntN(len(r.cmds))])
}

// sendSpec writes c, a step through a random exit if c says so. It reports
// false if the connection is broken.
func (b *bot) sendSpec(c *cmdSpec) bool {
	line := c.line
	if c.exit {
		line = b.pickExit()
	}
	return b.sendLine(c, line)
}

// sendLine writes line as the command c (whose markers know its answer).
// It reports false if the connection is broken.
func (b *bot) sendLine(c *cmdSpec, line []byte) bool {
	r := b.r
	now := r.mono()
	if c.say && r.cfg.Hear || c.channel {
		b.sayBuf = appendStamp(append(b.sayBuf[:0], bytes.TrimRight(line, "\r\n")...), now)
		line = append(b.sayBuf, "\r\n"...)
	}
	inWin := r.inWindow(now)
	v := now << 1
	if inWin {
		v |= 1
	}
	// Store before writing: the answer can arrive before Write returns.
	b.outCmd.Store(c)
	b.outstanding.Store(v)
	_, err := b.conn.Write(line)
	if err != nil && b.outstanding.CompareAndSwap(v, 0) {
		return false // never sent; the reader reports the disconnect
	}
	if inWin {
		b.sendStats.sent++
	}
	return err == nil
}

// opposite is the way back of each direction.
var opposite = map[string]string{
	"north": "south", "south": "north", "east": "west", "west": "east", "up": "down", "down": "up",
	"northeast": "southwest", "southwest": "northeast", "northwest": "southeast", "southeast": "northwest",
}

// pickExit chooses an open exit of the room the bot last saw, not the way
// it came unless that is the only one, so that a walk goes somewhere. With
// no exits seen it looks, which shows them.
func (b *bot) pickExit() []byte {
	p := b.exits.Load()
	if p == nil || len(*p) == 0 {
		b.lastDir = ""
		return lookLine
	}
	ways := *p
	back := opposite[b.lastDir]
	n := len(ways)
	if n > 1 && slices.Contains(ways, back) {
		n--
	}
	i := b.rng.IntN(n)
	if n < len(ways) {
		// Skip the way back.
		j := 0
		for _, w := range ways {
			if w == back {
				continue
			}
			if j == i {
				b.lastDir = w
				break
			}
			j++
		}
	} else {
		b.lastDir = ways[i]
	}
	return []byte(b.lastDir + "\r\n")
}

var lookLine = []byte("look\r\n")

// takeExits publishes the exits the stream found for the sender.
func (b *bot) takeExits() {
	if b.s.sawExits {
		ways := slices.Clone(b.s.exits)
		b.exits.Store(&ways)
	}
}

// expire counts the outstanding command as a timeout if it is older than
// the reply timeout. A prompt that comes later is unsolicited.
func (b *bot) expire(now int64) {
	out := b.outstanding.Load()
	if out == 0 || now-out>>1 < int64(b.r.cfg.ReplyTimeout) {
		return
	}
	if b.outstanding.CompareAndSwap(out, 0) && out&1 != 0 {
		b.sendStats.timeouts++
	}
}

// drain waits for the outstanding command, if any, to be answered, time
// out, or be lost.
func (b *bot) drain(timer *time.Timer) {
	r := b.r
	for {
		out := b.outstanding.Load()
		if out == 0 {
			return
		}
		left := out>>1 + int64(r.cfg.ReplyTimeout) - r.mono()
		if left <= 0 {
			b.expire(r.mono())
			continue
		}
		timer.Reset(time.Duration(left))
		select {
		case <-b.answered:
		case <-b.readerDone:
			return
		case <-timer.C:
		}
	}
}

// quit sends quit, waits for the server's farewell (it closes the
// connection), and closes.
func (b *bot) quit() {
	b.closing.Store(true)
	b.fleeAll()
	select {
	case <-b.readerDone:
	default:
		wait := b.r.cfg.QuitWait
		b.conn.SetWriteDeadline(time.Now().Add(wait))
		b.quitSent = b.r.mono()
		if _, err := b.conn.Write(quitLine); err == nil {
			t := time.NewTimer(wait)
			select {
			case <-b.readerDone:
			case <-t.C:
				b.farewellMissed = true
			}
			t.Stop()
		}
	}
	b.conn.Close()
	<-b.readerDone
}

// read is the bot's reader goroutine: it finds prompts and gives the
// answer to the outstanding command, counting the rest as unsolicited.
func (b *bot) read() {
	defer close(b.readerDone)
	r := b.r
	csv := r.cfg.CSV != ""
	var armedFor int64    // the outstanding value the stream is armed for
	var armedCmd *cmdSpec // the command it is armed for
	for {
		b.conn.SetReadDeadline(time.Now().Add(readPoll))
		if _, err := b.br.Peek(1); err != nil {
			if errors.Is(err, os.ErrDeadlineExceeded) {
				continue // a quiet spell, not an end
			}
			if b.closing.Load() {
				// The server closed after quit (or the bot gave up on it).
				b.readerEnded.Store(r.mono())
				return
			}
			b.readStats.disconnected = true
			if out := b.outstanding.Swap(0); out&1 != 0 {
				b.readStats.lost++
			}
			return
		}
		now := r.mono()
		// Arm the stream for a command sent before this read returned; text
		// read before a command was sent cannot answer it.
		if out := b.outstanding.Load(); out != 0 && out != armedFor && out>>1 <= now {
			armedFor = out
			var markers [][]byte
			armedCmd = b.outCmd.Load()
			if armedCmd != nil {
				markers = armedCmd.markers
			}
			b.s.arm(markers)
		}
		chunk, _ := b.br.Peek(b.br.Buffered())
		prompts := b.s.feed(chunk)
		b.br.Discard(len(chunk))
		b.takeExits()
		b.takeSeen()
		for _, t := range b.s.heard {
			if r.inWindow(t) {
				r.heard.record(time.Duration(now - t))
			}
		}
		b.s.heard = b.s.heard[:0]
		for _, t := range b.s.heardCh {
			if r.inWindow(t) {
				r.heardCh.record(time.Duration(now - t))
			}
		}
		b.s.heardCh = b.s.heardCh[:0]
		b.flushReply() // a failed write shows up as a failed read
		if b.s.answered {
			prompts--
			if armedFor != 0 && b.outstanding.CompareAndSwap(armedFor, 0) && armedFor&1 != 0 {
				sent := armedFor >> 1
				b.readStats.answered++
				r.rtt.record(time.Duration(now - sent))
				if sr := armedCmd.series; sr != nil {
					if b.s.which == 0 {
						sr.rtt.record(time.Duration(now - sent))
					} else {
						sr.refused.Add(1)
					}
				}
				if csv {
					b.readStats.samples = append(b.readStats.samples, sample{sent, now - sent})
				}
			}
			select {
			case b.answered <- struct{}{}:
			default:
			}
		}
		if prompts > 0 && r.inWindow(now) {
			b.readStats.unsolicited += int64(prompts)
		}
	}
}
