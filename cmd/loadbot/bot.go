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
	// quitWait is how long a bot waits for the server to close after quit.
	quitWait = 2 * time.Second
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
	loginTime      time.Duration // dial to first prompt
	failure        string        // why connecting or logging in failed; "" if it did not
	failureExample string

	conn net.Conn // safe for the concurrent writes of reader and sender
	br   *bufio.Reader
	s    stream // bot goroutine while logging in, then reader goroutine only

	// atomic: the unanswered command as sendTime<<1 | inWindow, sendTime in
	// run.mono() nanoseconds, or 0. The sender stores it before writing; the
	// reader (answer, disconnect) or the sender (timeout) clears it with a
	// compare-and-swap, and whoever clears it counts it, so each command is
	// counted exactly once.
	outstanding atomic.Int64
	closing     atomic.Bool   // the bot is ending the connection itself
	answered    chan struct{} // capacity 1; the reader nudges a draining sender
	readerDone  chan struct{} // closed when the reader returns

	rng       *rand.Rand // sender only
	sendStats struct {   // sender only
		sent, timeouts, skipped int64
	}
	readStats struct { // reader only
		answered, lost, unsolicited int64
		disconnected                bool
		samples                     []sample // only with -csv
	}
}

// sample is one round trip for the CSV file.
type sample struct {
	sent int64 // run.mono() nanoseconds
	rtt  int64 // nanoseconds
}

func newBot(r *run, idx int) *bot {
	return &bot{
		r:          r,
		idx:        idx,
		name:       botName(r.cfg.Prefix, idx),
		answered:   make(chan struct{}, 1),
		readerDone: make(chan struct{}),
		rng:        rand.New(rand.NewPCG(r.cfg.Seed, uint64(idx))),
	}
}

// run logs the bot in, calls logins.Done, and if the login worked, sends
// commands until the run stops, then quits.
func (b *bot) run(ctx context.Context, logins *sync.WaitGroup) {
	ok := b.login(ctx)
	if ok {
		b.r.loggedIn.Add(1)
	}
	logins.Done()
	if !ok {
		return
	}
	go b.read() // tracked: quit waits for readerDone
	b.send()
	b.quit()
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

// loginFailures are the server lines that end a login (DESIGN.md).
var loginFailures = []string{"refused", "wrong password", "too many"}

// login dials and answers the server's questions until the first prompt. It
// reports false, with b.failure set unless ctx ended, when that fails.
func (b *bot) login(ctx context.Context) bool {
	cfg := &b.r.cfg
	start := time.Now()
	deadline := start.Add(cfg.LoginTimeout)
	d := net.Dialer{Deadline: deadline}
	conn, err := d.DialContext(ctx, "tcp", cfg.Addr)
	if err != nil {
		if ctx.Err() == nil {
			b.failure, b.failureExample = "connect: "+errClass(err), err.Error()
		}
		return false
	}
	b.connected = true
	b.conn = conn
	conn.SetDeadline(deadline)
	stop := context.AfterFunc(ctx, func() { conn.SetDeadline(time.Now()) })
	defer stop()

	b.br = bufio.NewReaderSize(conn, readBufSize)
	b.s.keep = true
	step := stepName
	fail := func(reason, example string) bool {
		if ctx.Err() == nil {
			b.failure, b.failureExample = reason, example
		}
		conn.Close()
		return false
	}
	answer := func(line string, next loginStep) error {
		b.s.sent()
		step = next
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
			}
		case stepPassword:
			if containsFold(text, "password") {
				err = answer(cfg.Password, stepAgain)
			}
		case stepAgain:
			if containsFold(text, "again") {
				err = answer(cfg.Password, stepPrompt)
			}
		case stepPrompt:
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

// sendCommand writes one random command. It reports false if the connection
// is broken.
func (b *bot) sendCommand() bool {
	r := b.r
	line := r.lines[b.rng.IntN(len(r.lines))]
	now := r.mono()
	inWin := r.inWindow(now)
	v := now << 1
	if inWin {
		v |= 1
	}
	// Store before writing: the answer can arrive before Write returns.
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

// quit sends quit, gives the server a moment to close, and closes.
func (b *bot) quit() {
	b.closing.Store(true)
	select {
	case <-b.readerDone:
	default:
		b.conn.SetWriteDeadline(time.Now().Add(quitWait))
		if _, err := b.conn.Write(quitLine); err == nil {
			t := time.NewTimer(quitWait)
			select {
			case <-b.readerDone:
			case <-t.C:
			}
			t.Stop()
		}
	}
	b.conn.Close()
	<-b.readerDone
}

// read is the bot's reader goroutine: it finds prompts and gives each to the
// outstanding command or counts it as unsolicited.
func (b *bot) read() {
	defer close(b.readerDone)
	r := b.r
	csv := r.cfg.CSV != ""
	for {
		b.conn.SetReadDeadline(time.Now().Add(readPoll))
		if _, err := b.br.Peek(1); err != nil {
			if b.closing.Load() {
				return
			}
			if errors.Is(err, os.ErrDeadlineExceeded) {
				continue
			}
			b.readStats.disconnected = true
			if out := b.outstanding.Swap(0); out&1 != 0 {
				b.readStats.lost++
			}
			return
		}
		now := r.mono()
		chunk, _ := b.br.Peek(b.br.Buffered())
		prompts := b.s.feed(chunk)
		b.br.Discard(len(chunk))
		b.flushReply() // a failed write shows up as a failed read
		for range prompts {
			out := b.outstanding.Load()
			// A prompt read before the command was sent is not its answer.
			if out == 0 || out>>1 > now || !b.outstanding.CompareAndSwap(out, 0) {
				if r.inWindow(now) {
					b.readStats.unsolicited++
				}
				continue
			}
			if out&1 != 0 {
				sent := out >> 1
				b.readStats.answered++
				r.rtt.record(time.Duration(now - sent))
				if csv {
					b.readStats.samples = append(b.readStats.samples, sample{sent, now - sent})
				}
			}
			select {
			case b.answered <- struct{}{}:
			default:
			}
		}
	}
}
