// Package servertest starts a real zonemud on loopback for end-to-end tests
// and drives it with real telnet byte streams. Tests in any package use it;
// nothing outside tests imports it.
package servertest

import (
	"bufio"
	"bytes"
	"compress/zlib"
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"zonemud/content/contenttest"
	"zonemud/server"
	"zonemud/server/config"
	"zonemud/store"
)

// Root is the repository root.
func Root() string { return contenttest.Root() }

// Config returns the repository's config.toml with test settings: loopback
// ports chosen by the system, a temporary data dir, the repository's areas,
// cheap password hashing, and no wall-clock limit on scripts.
func Config(t testing.TB) *config.Config {
	t.Helper()
	def, err := os.ReadFile(filepath.Join(Root(), "config.toml"))
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(def, "")
	if err != nil {
		t.Fatal(err)
	}
	cfg.Server.TelnetAddr = "127.0.0.1:0"
	cfg.Server.SSHAddr = "127.0.0.1:0"
	cfg.Server.HTTPAddr = "127.0.0.1:0"
	cfg.Server.WebAddr = "127.0.0.1:0"
	cfg.Server.DataDir = t.TempDir()
	cfg.Server.AreasDir = filepath.Join(Root(), "areas")
	cfg.Gate.ArgonMemoryKiB = 64
	cfg.Gate.ArgonTime = 1
	cfg.Gate.HashConcurrency = 4
	cfg.Gate.LinesPerSec = 1000
	cfg.Gate.LinesBurst = 1000
	// Scripts are limited by their counted budgets alone: the wall-clock
	// hang guard would make a test's outcome depend on the machine.
	cfg.Lua.DeadlineMs = 0
	return cfg
}

// Admin makes a character that holds the admin role in cfg's database,
// as zonemud admin create does: the server must not be running yet. A
// test logs it in with Login, not Create: a name made at the name prompt
// is never an admin, whatever [world] admins lists.
func Admin(t testing.TB, cfg *config.Config, name, password string) {
	t.Helper()
	if _, err := server.CreateAdmin(cfg, name, password); err != nil {
		t.Fatalf("admin create %s: %v", name, err)
	}
}

// Start runs a server with cfg (Config(t) if nil) and shuts it down when
// the test ends, checking that shutdown was clean and that the database it
// leaves passes every check the store makes when it opens a file.
func Start(t testing.TB, cfg *config.Config) *server.Server {
	t.Helper()
	if cfg == nil {
		cfg = Config(t)
	}
	log := slog.New(slog.NewTextHandler(testWriter{t}, &slog.HandlerOptions{Level: slog.LevelWarn}))
	srv, err := server.Start(cfg, server.Options{Log: log})
	if err != nil {
		t.Fatalf("start server: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := srv.Shutdown(ctx); err != nil {
			t.Errorf("shutdown: %v", err)
		}
		path := filepath.Join(cfg.Server.DataDir, cfg.Store.File)
		scfg := cfg.Store
		scfg.CheckOnOpen = true
		db, err := store.OpenReadOnly(path, scfg)
		if err != nil {
			t.Errorf("the database the server left does not pass its checks: %v", err)
			return
		}
		if err := db.Close(); err != nil {
			t.Error(err)
		}
	})
	return srv
}

type testWriter struct{ t testing.TB }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Logf("%s", bytes.TrimRight(p, "\n"))
	return len(p), nil
}

// Client is a scripted telnet client: it refuses every option the server
// offers (like plain telnet or netcat would, as far as the server can
// tell), strips telnet commands from what it reads, and lets a test send
// lines and wait for text.
type Client struct {
	t    testing.TB
	conn net.Conn

	mu     sync.Mutex
	buf    strings.Builder // everything read, telnet commands and colour codes stripped
	mark   int             // Expect searches from here
	closed bool
	cond   *sync.Cond
	raw    bytes.Buffer // everything read, as sent
	// Agree lists options (by code) the client says yes to.
	agree map[byte]bool
	// stop, when set, makes the reader stop reading (a client that never
	// reads its output).
	stop   atomic.Bool
	resume chan struct{}
	// compressed: the server's output is an MCCP2 stream now.
	compressed bool
}

// StopReading makes the client stop reading from the socket, so the
// server's writes back up.
func (c *Client) StopReading() { c.stop.Store(true) }

// Dial connects a client to addr.
func Dial(t testing.TB, addr string, agree ...byte) *Client {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatalf("dial %s: %v", addr, err)
	}
	return Wrap(t, c, agree...)
}

// DialTLS connects a client over TLS, trusting any certificate (the
// server's is self-signed in tests).
func DialTLS(t testing.TB, addr string, agree ...byte) *Client {
	t.Helper()
	c, err := tls.DialWithDialer(&net.Dialer{Timeout: 5 * time.Second}, "tcp", addr, &tls.Config{InsecureSkipVerify: true})
	if err != nil {
		t.Fatalf("dial TLS %s: %v", addr, err)
	}
	return Wrap(t, c, agree...)
}

// Wrap makes a client of a connection the test opened itself.
func Wrap(t testing.TB, c net.Conn, agree ...byte) *Client {
	cl := &Client{t: t, conn: c, agree: map[byte]bool{}, resume: make(chan struct{})}
	for _, o := range agree {
		cl.agree[o] = true
	}
	cl.cond = sync.NewCond(&cl.mu)
	go cl.read()
	t.Cleanup(func() { c.Close() })
	return cl
}

const (
	iac  = 255
	will = 251
	wont = 252
	do   = 253
	dont = 254
	sb   = 250
	se   = 240
)

// OptMCCP2 is telnet's MCCP2 option: a client that agrees to it (Dial's
// agree) reads the zlib stream that follows IAC SB MCCP2 IAC SE.
const OptMCCP2 = 86

func (c *Client) read() {
	b := make([]byte, 4096)
	state := 0
	var verb, sbOpt byte
	var src io.Reader = c.conn
	var plain *bufio.Reader // under a zlib stream: the connection, read no further than the stream
	for {
		if c.stop.Load() {
			<-c.resume // never closed: a reader that has stopped for good
		}
		n, err := src.Read(b)
		if err == io.EOF && plain != nil {
			src, plain, err = plain, nil, nil // the compressed stream ended (MCCP2 off); plain telnet again
			c.mu.Lock()
			c.compressed = false
			c.mu.Unlock()
		}
		var rest []byte // bytes after the start of compression
		c.mu.Lock()
		c.raw.Write(b[:n])
	scan:
		for i, x := range b[:n] {
			switch state {
			case 0:
				switch {
				case x == iac:
					state = 1
				case x == 0x1b:
					state = 5
				default:
					c.buf.WriteByte(x)
				}
			case 1:
				switch x {
				case iac:
					c.buf.WriteByte(iac)
					state = 0
				case will, wont, do, dont:
					verb, state = x, 2
				case sb:
					state, sbOpt = 6, 0
				default:
					state = 0
				}
			case 2:
				c.answer(verb, x)
				state = 0
			case 3: // in SB until IAC SE
				if x == iac {
					state = 4
				}
			case 4:
				if x != se {
					state = 3
					break
				}
				state = 0
				if sbOpt == OptMCCP2 && c.agree[OptMCCP2] && plain == nil {
					rest = append([]byte{}, b[i+1:n]...)
					c.compressed = true
					break scan
				}
			case 6: // the option of a subnegotiation
				sbOpt, state = x, 3
				if x == iac {
					state = 4
				}
			case 5: // ESC: drop a CSI sequence (colour) up to its final byte
				if x != '[' && (x >= 0x40 && x <= 0x7e) {
					state = 0
				}
			}
		}
		if rest != nil {
			c.raw.Truncate(c.raw.Len() - len(rest)) // written again as they decompress
		}
		if err != nil {
			c.closed = true
		}
		c.cond.Broadcast()
		c.mu.Unlock()
		if err != nil {
			return
		}
		if rest != nil {
			plain = bufio.NewReader(io.MultiReader(bytes.NewReader(rest), src))
			zr, zerr := zlib.NewReader(plain)
			if zerr != nil {
				c.mu.Lock()
				c.closed = true
				c.buf.WriteString("\n(servertest: not a zlib stream after MCCP2 began: " + zerr.Error() + ")\n")
				c.cond.Broadcast()
				c.mu.Unlock()
				return
			}
			src = zr
		}
	}
}

// Compressed reports whether the server's output is an MCCP2 stream now
// (for a client that agreed to OptMCCP2): it began and has not ended.
func (c *Client) Compressed() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.compressed
}

// answer replies to negotiation; c.mu is held.
func (c *Client) answer(verb, opt byte) {
	var reply byte
	switch verb {
	case will:
		reply = dont
		if c.agree[opt] {
			reply = do
		}
	case do:
		reply = wont
		if c.agree[opt] {
			reply = will
		}
	default:
		return
	}
	go c.conn.Write([]byte{iac, reply, opt})
}

// Send writes one line.
func (c *Client) Send(line string) {
	c.t.Helper()
	if _, err := c.conn.Write([]byte(line + "\r\n")); err != nil {
		c.t.Fatalf("send %q: %v", line, err)
	}
}

// Write writes raw bytes.
func (c *Client) Write(p []byte) error {
	_, err := c.conn.Write(p)
	return err
}

// ExpectTimeout is how long Expect waits: a bound on a hang, generous
// enough for a machine running the race detector beside other work.
const ExpectTimeout = 15 * time.Second

// Expect waits until the text read since the last Expect contains want,
// and moves past it. It fails the test after ExpectTimeout.
func (c *Client) Expect(want string) string {
	c.t.Helper()
	got, err := c.wait(want, ExpectTimeout)
	if err != nil {
		c.t.Fatalf("%v", err)
	}
	return got
}

// ExpectWithin is Expect with a given timeout.
func (c *Client) ExpectWithin(want string, d time.Duration) string {
	c.t.Helper()
	got, err := c.wait(want, d)
	if err != nil {
		c.t.Fatalf("%v", err)
	}
	return got
}

// Try is Expect that reports failure instead of failing the test.
func (c *Client) Try(want string, d time.Duration) (string, bool) {
	got, err := c.wait(want, d)
	return got, err == nil
}

func (c *Client) wait(want string, d time.Duration) (string, error) {
	deadline := time.Now().Add(d)
	timer := time.AfterFunc(d, func() {
		c.mu.Lock()
		c.cond.Broadcast()
		c.mu.Unlock()
	})
	defer timer.Stop()
	c.mu.Lock()
	defer c.mu.Unlock()
	for {
		s := c.buf.String()
		if i := strings.Index(s[c.mark:], want); i >= 0 {
			got := s[c.mark : c.mark+i+len(want)]
			c.mark += i + len(want)
			return got, nil
		}
		if c.closed {
			return "", fmt.Errorf("connection closed waiting for %q; got since last match:\n%s", want, s[c.mark:])
		}
		if time.Now().After(deadline) {
			return "", fmt.Errorf("timed out after %v waiting for %q; got since last match:\n%s", d, want, s[c.mark:])
		}
		c.cond.Wait()
	}
}

// Since returns everything read since the last match, without moving on.
func (c *Client) Since() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.buf.String()[c.mark:]
}

// Skip moves past everything read so far.
func (c *Client) Skip() {
	c.mu.Lock()
	c.mark = c.buf.Len()
	c.mu.Unlock()
}

// Raw returns every byte read, telnet commands included.
func (c *Client) Raw() []byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]byte(nil), c.raw.Bytes()...)
}

// WaitClosed waits for the server to close the connection.
func (c *Client) WaitClosed(d time.Duration) bool {
	deadline := time.Now().Add(d)
	timer := time.AfterFunc(d, func() {
		c.mu.Lock()
		c.cond.Broadcast()
		c.mu.Unlock()
	})
	defer timer.Stop()
	c.mu.Lock()
	defer c.mu.Unlock()
	for !c.closed {
		if time.Now().After(deadline) {
			return false
		}
		c.cond.Wait()
	}
	return true
}

// Quit types quit and waits for the farewell and for the server to close
// the connection, failing the test if it stays open.
func (c *Client) Quit() {
	c.t.Helper()
	c.Send("quit")
	c.Expect("Farewell")
	if !c.WaitClosed(10 * time.Second) {
		c.t.Fatal("quit did not close the connection")
	}
}

// NamePrompt is the login's question for a character name.
const NamePrompt = "By what name do you wish to be known?"

// Close drops the connection, as a player whose line fails would.
func (c *Client) Close() { c.conn.Close() }

// Create logs in a new character and waits for the first prompt in the
// world.
func (c *Client) Create(name, password string) {
	c.t.Helper()
	c.Expect("name")
	c.Send(name)
	c.Expect("(y/n)")
	c.Send("y")
	c.Expect("password")
	c.Send(password)
	c.Expect("again")
	c.Send(password)
	c.Expect("Exits:")
	c.Expect("> ")
}

// Login logs in an existing character and waits for the first prompt in
// the world.
func (c *Client) Login(name, password string) {
	c.t.Helper()
	c.Enter(name, password)
	c.Expect("Exits:")
	c.Expect("> ")
}

// Enter answers the login's name and password questions and returns
// without waiting for the room. What an arrival brings from outside the
// zone (kept tells, "You have new mail.") comes from the world's comm
// worker and may be written before or after the room and its first
// prompt, so a test that waits for it expects it next, not after Login:
// Login's wait for the prompt could read past it.
func (c *Client) Enter(name, password string) {
	c.t.Helper()
	c.Expect("name")
	c.Send(name)
	c.Expect("password")
	c.Send(password)
}

// Do sends a command and waits for the next prompt, returning what came
// before it. Output from others (speech, a wandering mob) can arrive first,
// so a test that needs a particular answer uses DoExpect.
func (c *Client) Do(cmd string) string {
	c.t.Helper()
	c.Skip()
	c.Send(cmd)
	return c.Expect("> ")
}

// DoExpect sends a command and waits for want in what comes back.
func (c *Client) DoExpect(cmd, want string) string {
	c.t.Helper()
	c.Skip()
	c.Send(cmd)
	return c.Expect(want)
}

// CopyAreas copies the repository's areas into a temp dir, passing each
// file through edit, and returns the dir (contenttest.CopyAreas).
func CopyAreas(t testing.TB, edit func(name string, data []byte) []byte) string {
	t.Helper()
	return contenttest.CopyAreas(t, edit)
}

// Numbered lists, in the order seen, the numbers of the lines of seen that
// hold prefix followed by a number and a closing quote ("You say, 'flood
// 12'" for the prefix "You say, 'flood "): a flood's answers, to check
// for lines answered twice, dropped or out of order.
func Numbered(seen, prefix string) []int {
	var out []int
	for _, line := range strings.Split(seen, "\n") {
		i := strings.Index(line, prefix)
		if i < 0 {
			continue
		}
		n, err := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(line[i+len(prefix):]), "'"))
		if err == nil {
			out = append(out, n)
		}
	}
	return out
}
