package page_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"zonemud/net/web/page"
)

// stubRig is the page in a real Chromium against a stub of the web front
// that the test scripts frame by frame: what the page does with each
// frame, and what it sends, without the game behind it.
type stubRig struct {
	t     *testing.T
	ctx   context.Context
	url   string
	conns chan *stubWS
}

func newStubRig(t *testing.T) *stubRig { return newStubRigIn(t, browser(t)) }

func newStubRigIn(t *testing.T, ctx context.Context) *stubRig {
	conns := make(chan *stubWS, 4)
	mux := http.NewServeMux()
	mux.Handle("/ws", stubServer(t, conns))
	mux.Handle("/", page.Handler())
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return &stubRig{t: t, ctx: ctx, url: srv.URL + "/", conns: conns}
}

// stubConn is one connection from the page, its messages read as they
// come.
type stubConn struct {
	*stubWS
	t      *testing.T
	frames chan stubFrame
}

// accept waits for the page's next connection.
func (r *stubRig) accept() *stubConn {
	r.t.Helper()
	select {
	case ws := <-r.conns:
		c := &stubConn{stubWS: ws, t: r.t, frames: make(chan stubFrame, 64)}
		r.t.Cleanup(ws.Drop)
		go func() {
			defer close(c.frames)
			for {
				f, err := ws.Read()
				if err != nil {
					return
				}
				c.frames <- f
			}
		}()
		return c
	case <-time.After(30 * time.Second):
		r.t.Fatal("the page never connected")
		return nil
	}
}

// CloseNormal ends the connection with close code 1000 as a server does:
// the close frame, then what the page still sends read until its own
// close frame answers, and only then the socket closed. Closing at once
// would leave the page's last messages unread, and the kernel answers
// unread data with a reset, which the browser reports as a lost link.
func (c *stubConn) CloseNormal() {
	_ = c.writeFrame(8, []byte{0x03, 0xe8})
	deadline := time.After(10 * time.Second)
	for open := true; open; {
		select {
		case _, open = <-c.frames:
		case <-deadline:
			open = false
		}
	}
	c.conn.Close()
}

// next returns the page's next message.
func (c *stubConn) next() stubFrame {
	c.t.Helper()
	select {
	case f, ok := <-c.frames:
		if !ok {
			c.t.Fatal("the page closed the connection")
		}
		return f
	case <-time.After(30 * time.Second):
		c.t.Fatal("the page sent nothing")
		return stubFrame{}
	}
}

// expect reads the page's next message and checks it.
func (c *stubConn) expect(binary bool, want string) {
	c.t.Helper()
	f := c.next()
	if f.binary != binary || f.data != want {
		c.t.Fatalf("the page sent %q (binary %v), want %q (binary %v)", f.data, f.binary, want, binary)
	}
}

// expectGMCP reads the page's next message and checks it is a text
// message naming pkg, returning its data.
func (c *stubConn) expectGMCP(pkg string) string {
	c.t.Helper()
	f := c.next()
	name, data, _ := strings.Cut(f.data, " ")
	if f.binary || name != pkg {
		c.t.Fatalf("the page sent %q (binary %v), want GMCP %s", f.data, f.binary, pkg)
	}
	return data
}

func (c *stubConn) text(s string) {
	c.t.Helper()
	if err := c.Text(s); err != nil {
		c.t.Fatal(err)
	}
}

func (c *stubConn) binary(s string) {
	c.t.Helper()
	if err := c.Binary(s); err != nil {
		c.t.Fatal(err)
	}
}

func (r *stubRig) do(actions ...chromedp.Action[chromedp.Void]) {
	r.t.Helper()
	if err := chromedp.Do(r.ctx, actions...); err != nil {
		r.t.Fatal(err)
	}
}

// wait waits until the JavaScript condition cond holds in the page.
func (r *stubRig) wait(cond string) {
	r.t.Helper()
	if _, err := chromedp.Run(r.ctx, chromedp.Poll[chromedp.Void](cond)); err != nil {
		r.t.Fatalf("waiting for %s: %v (the output reads %q)", cond, err, r.str(`document.getElementById("output").innerText`))
	}
}

// str evaluates a JavaScript expression that gives a string.
func (r *stubRig) str(expr string) string {
	r.t.Helper()
	s, err := chromedp.Run(r.ctx, chromedp.Evaluate[string](expr))
	if err != nil {
		r.t.Fatalf("%s: %v", expr, err)
	}
	return s
}

func (r *stubRig) typeLine(s string) {
	r.t.Helper()
	r.do(chromedp.SendKeys(chromedp.ID("input"), s+kb.Enter))
}

func TestPage_AgainstStub(t *testing.T) {
	r := newStubRig(t)
	r.do(chromedp.Navigate(r.url))
	c := r.accept()

	// What a fresh page says first: who it is, what it wants, its size.
	if hello := c.expectGMCP("Core.Hello"); !strings.Contains(hello, `"client":"zonemud-web"`) || !strings.Contains(hello, `"screenreader":false`) {
		t.Errorf("Core.Hello %s", hello)
	}
	if sup := c.expectGMCP("Core.Supports.Set"); sup != `["Char 1","Room 1","Comm 1"]` {
		t.Errorf("Core.Supports.Set %s", sup)
	}
	if size := c.expectGMCP("Client.Size"); !strings.Contains(size, `"width":`) || !strings.Contains(size, `"height":`) {
		t.Errorf("Client.Size %s", size)
	}
	r.wait(`document.getElementById("status").dataset.state === "connected"`)

	// The name, echoed after its question.
	c.binary("Welcome!\r\nBy what name do you wish to be known? ")
	r.wait(`document.getElementById("output").innerText.includes("known? ")`)
	r.typeLine("Aria")
	c.expect(true, "Aria\n")
	r.wait(`document.getElementById("output").innerText.includes("known? Aria")`)

	// A password question the server marks with Client.Echo: masked, sent
	// whole (a ";" in it is no separator), never shown, never kept.
	c.text(`Client.Echo {"on":false}`)
	c.binary("Password: ")
	r.wait(`document.getElementById("input").type === "password"`)
	r.typeLine("se;cret")
	c.expect(true, "se;cret\n")
	c.text(`Client.Echo {"on":true}`)
	r.wait(`document.getElementById("input").type === "text"`)
	// A password question the server does not mark is masked too.
	c.binary("\r\nType the password again: ")
	r.wait(`document.getElementById("input").type === "password"`)
	r.typeLine("se;cret")
	c.expect(true, "se;cret\n")
	if out := r.str(`document.getElementById("output").innerText`); strings.Contains(out, "cret") {
		t.Errorf("the password shows in the output: %q", out)
	}

	// In the game: the resume token, vitals, the room, styled text.
	c.binary("\r\n")
	c.text(`Client.Resume {"token":"tok-1"}`)
	c.text(`Char.Vitals {"hp":20,"maxhp":20,"mana":10,"maxmana":10,"moves":30,"maxmoves":40}`)
	c.text(`Room.Info {"num":1,"name":"Emberfall Square","area":"Emberfall","exits":{"n":2,"e":3}}`)
	c.binary("\x1b[1;33mEmberfall Square\x1b[0m\r\nSee https://example.org/x <img src=x onerror=\"window.pwned=1\"> here.\r\n" +
		"\x1b[38;2;255;0;0mred\x1b[0m \x1b[38;5;46mgreen\x1b[0m\r\n> ")
	r.wait(`document.getElementById("output").innerText.includes("green")`)
	r.wait(`document.getElementById("input").type === "text"`)
	if tok := r.str(`sessionStorage.getItem("zonemud.resume")`); tok != "tok-1" {
		t.Errorf("sessionStorage token %q, want tok-1", tok)
	}
	if loc := r.str(`location.href`); strings.Contains(loc, "tok") {
		t.Errorf("the token is in the address %q", loc)
	}
	for _, check := range []string{
		`[...document.querySelectorAll("#output span.f-c3.bold")].some((s) => s.textContent === "Emberfall Square")`,
		`[...document.querySelectorAll("#output span")].some((s) => s.style.color === "rgb(255, 0, 0)" && s.textContent === "red")`,
		`[...document.querySelectorAll("#output span")].some((s) => s.style.color === "rgb(0, 255, 0)" && s.textContent === "green")`,
		`document.querySelector('#output a[href="https://example.org/x"]').rel.includes("noopener")`,
		`document.querySelector("#output img") === null && window.pwned === undefined`,
		`document.getElementById("output").innerText.includes('<img src=x onerror="window.pwned=1">')`,
		`document.querySelector('.vital[data-vital="moves"] .bar').getAttribute("aria-valuenow") === "30"`,
		`document.querySelector('.vital[data-vital="moves"] .vtext').textContent === "30/40"`,
		`document.getElementById("room-name").textContent === "Emberfall Square"`,
		`[...document.querySelectorAll("#room-exits button")].map((b) => b.textContent).join(",") === "north,east"`,
	} {
		if ok, err := chromedp.Run(r.ctx, chromedp.Evaluate[bool](check)); err != nil || !ok {
			t.Errorf("not so: %s (%v)", check, err)
		}
	}

	// ";" sends several commands; history recalls what was typed, and
	// never the password.
	r.typeLine("n;e")
	c.expect(true, "n\n")
	c.expect(true, "e\n")
	r.do(chromedp.SendKeys(chromedp.ID("input"), kb.ArrowUp))
	if v := r.str(`document.getElementById("input").value`); v != "n;e" {
		t.Errorf("one up: %q, want n;e", v)
	}
	r.do(chromedp.SendKeys(chromedp.ID("input"), kb.ArrowUp+kb.ArrowUp))
	if v := r.str(`document.getElementById("input").value`); v != "Aria" {
		t.Errorf("up to the top of the history: %q, want Aria (and never the password)", v)
	}
	r.do(chromedp.SendKeys(chromedp.ID("input"), kb.Escape))

	// Walking draws the map; vitals bars follow Char.Vitals.
	c.text(`Room.Info {"num":2,"name":"North Street","area":"Emberfall","exits":{"s":1,"u":9}}`)
	c.text(`Char.Vitals {"hp":12,"maxhp":20,"mana":10,"maxmana":10,"moves":29,"maxmoves":40}`)
	r.wait(`document.querySelectorAll("#map rect").length === 2 && document.querySelector("#map rect.here title").textContent === "North Street"`)
	r.wait(`document.querySelector('.vital[data-vital="hp"] .bar').getAttribute("aria-valuenow") === "12"`)
	if w := r.str(`document.querySelector('.vital[data-vital="hp"] .fill').style.width`); w != "60%" {
		t.Errorf("hp bar width %q, want 60%%", w)
	}
	// An exit is a button that walks.
	r.do(chromedp.Click(chromedp.CSS(`#room-exits button[data-dir="s"]`)))
	c.expect(true, "south\n")

	// A channel message: counted while its tab is closed, shown as text.
	c.text(`Comm.Channel.Text {"channel":"gossip","talker":"Bran","text":"<b>hi</b> all"}`)
	r.wait(`document.getElementById("unread").textContent === "1" && !document.getElementById("unread").hidden`)
	r.do(chromedp.Click(chromedp.ID("tab-channels")))
	r.wait(`!document.getElementById("panel-channels").hidden && document.getElementById("unread").hidden`)
	if li := r.str(`document.querySelector("#channels li").textContent`); li != "gossip Bran: <b>hi</b> all" {
		t.Errorf("channel line %q", li)
	}
	if n := r.str(`String(document.querySelectorAll("#channels b").length)`); n != "0" {
		t.Errorf("a channel message became markup")
	}

	// Screen-reader mode tells the game, and drops colour.
	r.do(chromedp.Click(chromedp.ID("screenreader")))
	c.expect(true, "screenreader on\n")
	c.binary("\x1b[31mplain now\x1b[0m\r\n")
	r.wait(`[...document.querySelectorAll("#output .line")].some((l) => l.textContent === "plain now" && l.children.length === 0)`)
	r.wait(`getComputedStyle(document.getElementById("panel-map")).display === "none"`)
	r.do(chromedp.Click(chromedp.ID("screenreader")))
	c.expect(true, "screenreader off\n")

	// Text size.
	r.do(chromedp.Click(chromedp.ID("font-up")))
	r.wait(`document.documentElement.style.getPropertyValue("--font-size") === "18px"`)

	// A lost link: the state says so, Reconnect resumes with the token,
	// sent first.
	c.Drop()
	r.wait(`document.getElementById("status").dataset.state === "lost" && !document.getElementById("reconnect").hidden`)
	r.do(chromedp.Click(chromedp.ID("reconnect")))
	c = r.accept()
	c.expectGMCP("Core.Hello")
	c.expectGMCP("Core.Supports.Set")
	if tok := c.expectGMCP("Client.Resume"); tok != `{"token":"tok-1"}` {
		t.Errorf("Client.Resume %s", tok)
	}

	// A reload resumes too: the token outlives the page in this tab.
	c.text(`Client.Resume {"token":"tok-2"}`)
	r.wait(`sessionStorage.getItem("zonemud.resume") === "tok-2"`)
	r.do(chromedp.Reload())
	c = r.accept()
	c.expectGMCP("Core.Hello")
	c.expectGMCP("Core.Supports.Set")
	if tok := c.expectGMCP("Client.Resume"); tok != `{"token":"tok-2"}` {
		t.Errorf("Client.Resume after a reload %s", tok)
	}

	// A normal close (quit) leaves nothing to resume.
	r.wait(`document.getElementById("status").dataset.state === "connected"`)
	c.CloseNormal()
	r.wait(`document.getElementById("status").dataset.state === "closed" && !document.getElementById("reconnect").hidden`)
	if tok := r.str(`String(sessionStorage.getItem("zonemud.resume"))`); tok != "null" {
		t.Errorf("after a normal close the token is %q", tok)
	}
}
