package main

import (
	"bufio"
	"errors"
	"io"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// fakeOpts shapes a fakeServer.
type fakeOpts struct {
	eor    bool          // offer EOR and end prompts with IAC EOR
	ga     bool          // end prompts with IAC GA (when not eor); neither means a bare "> "
	refuse bool          // refuse every name
	mute   bool          // log in, then never answer a command
	silent bool          // accept connections and send nothing
	delay  time.Duration // before answering a command
	push   time.Duration // if set, an unsolicited line and prompt this often per connection
	// chatter, if set, sends a line of somebody else's talk with its own
	// prompt as soon as a command arrives, before the answer (a crowd).
	chatter bool
	// refuseMint answers down at the barrow with a refusal.
	refuseMint bool
	// cutOnMove closes the connection at the first step, as a server
	// cuts a client whose output it cannot deliver.
	cutOnMove bool
}

// fakeServer speaks the player-facing login and prompt contract over real
// loopback TCP, enough to drive bots.
type fakeServer struct {
	t    *testing.T
	ln   net.Listener
	opts fakeOpts

	mu    sync.Mutex
	known map[string]string     // name -> password; guarded by mu
	keys  map[string]string     // name -> authorized key line; guarded by mu
	conns map[net.Conn]struct{} // guarded by mu
	wg    sync.WaitGroup        // connection goroutines
	done  chan struct{}         // closed on cleanup
	seen  chan struct{}         // capacity 1; nudged on every command

	created, resumed   atomic.Int32 // logins of new and known names
	doEOR, wontNAWS    atomic.Int32 // negotiation answers received
	dontEcho, commands atomic.Int32
	pushes, quits      atomic.Int32
	moves              sync.Map            // direction -> *atomic.Int32: steps the bots took
	typed              map[string][]string // name -> every command, in order; guarded by mu
	badLines           atomic.Int32        // lines that were not what the protocol expects
}

func newFakeServer(t *testing.T, opts fakeOpts) *fakeServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("listen: %v", err)
	}
	f := &fakeServer{
		t:     t,
		ln:    ln,
		opts:  opts,
		known: map[string]string{},
		keys:  map[string]string{},
		typed: map[string][]string{},
		conns: map[net.Conn]struct{}{},
		done:  make(chan struct{}),
		seen:  make(chan struct{}, 1),
	}
	f.wg.Go(f.accept)
	t.Cleanup(func() {
		close(f.done)
		ln.Close()
		f.mu.Lock()
		for c := range f.conns {
			c.Close()
		}
		f.mu.Unlock()
		f.wg.Wait()
	})
	return f
}

func (f *fakeServer) addr() string { return f.ln.Addr().String() }

func (f *fakeServer) accept() {
	for {
		c, err := f.ln.Accept()
		if err != nil {
			return
		}
		f.mu.Lock()
		f.conns[c] = struct{}{}
		f.mu.Unlock()
		f.wg.Go(func() {
			defer func() {
				f.mu.Lock()
				delete(f.conns, c)
				f.mu.Unlock()
				c.Close()
			}()
			f.serve(c)
		})
	}
}

// fconn is one fake session. Writes are whole messages under mu, so a pushed
// line never lands inside an answer.
type fconn struct {
	f  *fakeServer
	c  io.ReadWriter
	br *bufio.Reader
	mu sync.Mutex
	// ssh: a terminal session; lines end with CR, and the user name is
	// known before the first question.
	ssh  bool
	user string
}

func (fc *fconn) write(s string) {
	fc.mu.Lock()
	defer fc.mu.Unlock()
	fc.c.Write([]byte(s))
}

// mark is what follows a prompt or question.
func (f *fakeServer) mark() string {
	switch {
	case f.opts.eor:
		return "\xff\xef"
	case f.opts.ga:
		return "\xff\xf9"
	}
	return ""
}

func (f *fakeServer) prompt() string { return "\r\n<20hp 100m> " + f.mark() }

// readLine reads one line, taking telnet negotiation out of the stream.
func (fc *fconn) readLine() (string, error) {
	var b strings.Builder
	for {
		c, err := fc.br.ReadByte()
		if err != nil {
			return "", err
		}
		switch c {
		case 255:
			verb, err1 := fc.br.ReadByte()
			opt, err2 := fc.br.ReadByte()
			if err := errors.Join(err1, err2); err != nil {
				return "", err
			}
			switch {
			case verb == 253 && opt == 25:
				fc.f.doEOR.Add(1)
			case verb == 252 && opt == 31:
				fc.f.wontNAWS.Add(1)
			case verb == 254 && opt == 1:
				fc.f.dontEcho.Add(1)
			}
		case '\r':
			if fc.ssh {
				return b.String(), nil
			}
		case '\n':
			return b.String(), nil
		default:
			b.WriteByte(c)
		}
	}
}

// answerOf is the fake world's answer to a command, in the real one's
// words where the bots look for them.
func answerOf(cmd string) string {
	switch {
	case cmd == "look" || cmd == "north" || cmd == "south" || cmd == "east" || cmd == "west":
		return "The Town Square\r\nA dusty square.\r\n\x1b[36mExits: north south [east] west\x1b[0m\r\n"
	case strings.HasPrefix(cmd, "say "):
		return "You say, '" + strings.TrimPrefix(cmd, "say ") + "'\r\n"
	}
	return "You " + cmd + ".\r\n"
}

func (f *fakeServer) serve(c net.Conn) {
	f.session(&fconn{f: f, c: c, br: bufio.NewReader(c)}, false)
}

// session is one connection's dialogue. authed is true for an SSH user
// whose key or password the front accepted.
func (f *fakeServer) session(fc *fconn, authed bool) {
	c := fc.c
	if f.opts.silent {
		io.Copy(io.Discard, c)
		return
	}
	var line string
	if fc.ssh {
		fc.write("Welcome to the fake realm.\r\n")
		line = fc.user
	} else {
		if f.opts.eor {
			fc.write("\xff\xfb\x19") // WILL EOR
		}
		fc.write("\xff\xfd\x1f\xff\xfb\x01") // DO NAWS, WILL ECHO: both refused
		fc.write("Welcome to the fake realm.\r\nBy what name do you wish to be known? " + f.mark())
		var err error
		if line, err = fc.readLine(); err != nil {
			return
		}
	}
	if f.opts.refuse {
		fc.write("That name is reserved and refused.\r\nBy what name do you wish to be known? " + f.mark())
		io.Copy(io.Discard, c)
		return
	}
	name := strings.ToUpper(line[:1]) + strings.ToLower(line[1:])
	f.mu.Lock()
	pass, known := f.known[name]
	f.mu.Unlock()
	if authed {
		f.resumed.Add(1)
	} else if known {
		fc.write("Password: " + f.mark())
		if got, err := fc.readLine(); err != nil {
			return
		} else if got != pass {
			fc.write("Wrong password.\r\n")
			return
		}
		f.resumed.Add(1)
	} else {
		fc.write("Did I get that right, " + name + " (y/n)? " + f.mark())
		if got, err := fc.readLine(); err != nil {
			return
		} else if got != "y" {
			f.badLines.Add(1)
			return
		}
		fc.write("Give me a password for " + name + ": " + f.mark())
		p1, err := fc.readLine()
		if err != nil {
			return
		}
		fc.write("Please type the password again: " + f.mark())
		p2, err := fc.readLine()
		if err != nil {
			return
		}
		if p1 != p2 {
			f.badLines.Add(1)
			fc.write("Passwords don't match.\r\n")
			return
		}
		f.mu.Lock()
		f.known[name] = p1
		f.mu.Unlock()
		f.created.Add(1)
	}
	fc.write("\r\n" + answerOf("look") + f.prompt()[2:])

	stop := make(chan struct{})
	defer close(stop)
	if f.opts.push > 0 {
		f.wg.Go(func() {
			tick := time.NewTicker(f.opts.push)
			defer tick.Stop()
			for {
				select {
				case <-stop:
					return
				case <-f.done:
					return
				case <-tick.C:
					f.pushes.Add(1)
					fc.write("\r\nA sparrow chirps." + f.prompt())
				}
			}
		})
	}
	for {
		cmd, err := fc.readLine()
		if err != nil {
			return
		}
		if k, ok := strings.CutPrefix(cmd, "sshkey add "); ok {
			f.mu.Lock()
			f.keys[name] = k
			f.mu.Unlock()
			fc.write("Key added: ED25519 key.\r\n" + f.prompt())
			continue
		}
		if cmd == "quit" {
			f.quits.Add(1)
			fc.write("Goodbye.\r\n")
			return
		}
		f.commands.Add(1)
		f.mu.Lock()
		f.typed[name] = append(f.typed[name], cmd)
		f.mu.Unlock()
		if _, isMove := opposite[cmd]; isMove {
			n, _ := f.moves.LoadOrStore(cmd, new(atomic.Int32))
			n.(*atomic.Int32).Add(1)
			if f.opts.cutOnMove {
				return
			}
		}
		select {
		case f.seen <- struct{}{}:
		default:
		}
		if f.opts.mute {
			continue
		}
		if f.opts.chatter {
			fc.write("\r\nSomebody says, 'hello'" + f.prompt())
		}
		if f.opts.delay > 0 {
			time.Sleep(f.opts.delay) // the server's work, not a test wait
		}
		answer := answerOf(cmd)
		if cmd == "down" {
			answer = "The way begins to open..." + f.prompt() + "The Crumbling Stair\r\nExits: up north\r\n"
			if f.opts.refuseMint {
				answer = "The way will not open.\r\n"
			}
		}
		fc.write(answer + f.prompt())
	}
}
