package web_test

import (
	"strings"
	"testing"
	"time"

	"zonemud/server/servertest"
)

// resumeWith opens a connection whose first message is Client.Resume.
func resumeWith(t *testing.T, addr, payload string) *wsClient {
	t.Helper()
	w := newGMCP(t, addr)
	w.SendGMCP("Client.Resume " + payload)
	return w
}

// A dropped page comes back with its token: into the character, with no
// password asked, and a fresh token; the old token is spent. A token is
// refused after a quit, for another character, and once the link-dead
// window is over; each refusal says why and the login goes on.
func TestResume_Token(t *testing.T) {
	cfg := servertest.Config(t)
	srv := servertest.Start(t, cfg)
	addr := srv.WebAddr()

	a := newGMCP(t, addr)
	a.Create("Reloader", "reloader-pass")
	t1 := token(t, a.ExpectGMCP("Client.Resume"))
	_ = a.c.CloseNow() // the page reloads: the connection drops

	b := resumeWith(t, addr, `{"token":"`+t1+`"}`)
	got := b.Expect("Exits:")
	if strings.Contains(got, "password") {
		t.Fatalf("a resume asked for the password:\n%s", got)
	}
	t2 := token(t, b.ExpectGMCP("Client.Resume"))
	if t2 == t1 {
		t.Fatal("the resume token was not rotated")
	}
	b.DoExpect("say back again", "You say, 'back again'")
	// The dropped connection's session ends as the gate notices the
	// drop, which may be just after the resume: wait for it (a bound on
	// a hang), then there is one.
	for deadline := time.Now().Add(servertest.ExpectTimeout); ; {
		n := 0
		for _, si := range srv.Gate().Sessions() {
			if si.Name == "Reloader" {
				n++
			}
		}
		if n == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d sessions for Reloader after the resume", n)
		}
		time.Sleep(20 * time.Millisecond)
	}

	// Replayed: the first token is spent.
	r := resumeWith(t, addr, `{"token":"`+t1+`"}`)
	r.Expect("cannot be resumed")
	r.Expect("By what name")
	_ = r.c.CloseNow()

	// A garbled resume is refused like a spent one.
	g := resumeWith(t, addr, `{"token":`)
	g.Expect("cannot be resumed")
	g.Expect("By what name")
	_ = g.c.CloseNow()

	// A reload while the old connection is still open takes it over.
	c := resumeWith(t, addr, `{"token":"`+t2+`","name":"reloader"}`)
	c.Expect("Exits:")
	b.Expect("logged in from another connection")
	b.WaitClosed()
	t3 := token(t, c.ExpectGMCP("Client.Resume"))

	// Another character's token, or a name that is not the token's.
	other := newGMCP(t, addr)
	other.Create("Otherone", "otherone-pass")
	to := token(t, other.ExpectGMCP("Client.Resume"))
	x := resumeWith(t, addr, `{"token":"`+to+`","name":"Reloader"}`)
	x.Expect("belongs to another character")
	x.Expect("By what name")
	x.Send("Reloader")
	x.Expect("password") // the normal login, password and all
	_ = x.c.CloseNow()

	// After a quit: the token dies with the session.
	c.Send("quit")
	c.Expect("Farewell")
	c.WaitClosed()
	q := resumeWith(t, addr, `{"token":"`+t3+`"}`)
	q.Expect("cannot be resumed")
	q.Expect("By what name")
	q.Send("Reloader")
	q.Expect("password")
	q.Send("reloader-pass")
	q.Expect("Exits:")
	t4 := token(t, q.ExpectGMCP("Client.Resume"))

	// After the link-dead window (a millisecond here) the token is
	// refused. The gate counts the connection gone once it has set the
	// token's end.
	srv.Gate().SetLinkDead(time.Millisecond)
	_ = q.c.CloseNow()
	for deadline := time.Now().Add(servertest.ExpectTimeout); srv.Gate().Connections() != 1; { // other
		if time.Now().After(deadline) {
			t.Fatalf("%d connections, want 1", srv.Gate().Connections())
		}
		time.Sleep(20 * time.Millisecond)
	}
	time.Sleep(10 * time.Millisecond) // past the token's millisecond
	e := resumeWith(t, addr, `{"token":"`+t4+`"}`)
	e.Expect("cannot be resumed")
	e.Expect("By what name")
}

// A page says what it supports before its token, as the built-in page
// does: the resumed character's room and vitals reach it as it goes back
// in. A token sent after something typed is not read as a resume, nor a
// second one on the same connection.
func TestResume_AfterSupportsNotAfterTyping(t *testing.T) {
	srv := servertest.Start(t, nil)
	addr := srv.WebAddr()
	a := newGMCP(t, addr)
	a.SendGMCP(`Core.Supports.Set ["Char 1","Room 1"]`)
	a.Create("Panelled", "panelled-pass")
	t1 := token(t, a.ExpectGMCP("Client.Resume"))
	_ = a.c.CloseNow()

	b := newGMCP(t, addr)
	b.SendGMCP(`Core.Hello {"client":"test","version":"1"}`)
	b.SendGMCP(`Core.Supports.Set ["Char 1","Room 1"]`)
	b.SendGMCP(`Client.Resume {"token":"` + t1 + `"}`)
	b.Expect("Reconnecting")
	// The three come in no fixed order.
	var t2 string
	for deadline := time.Now().Add(servertest.ExpectTimeout); ; time.Sleep(20 * time.Millisecond) {
		var vitals, room bool
		for _, m := range b.GMCP() {
			pkg, data, _ := strings.Cut(m, " ")
			switch pkg {
			case "Char.Vitals":
				vitals = true
			case "Room.Info":
				room = strings.Contains(data, `"name":"Emberfall Square"`)
			case "Client.Resume":
				t2 = token(t, data)
			}
		}
		if vitals && room && t2 != "" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after a resume, want Char.Vitals, Room.Info and a token; text messages %q", b.GMCP())
		}
	}

	// A second Client.Resume on a connection already in the game is no
	// login: the session goes on.
	b.SendGMCP(`Client.Resume {"token":"` + t2 + `"}`)
	b.DoExpect("say still here", "You say, 'still here'")

	// Typed first, then a token: the token is ignored, the login goes on
	// with the name typed.
	_ = b.c.CloseNow()
	c := newGMCP(t, addr)
	c.Expect("By what name")
	c.Send("Panelled")
	c.SendGMCP(`Client.Resume {"token":"` + t2 + `"}`)
	c.Expect("password")
}
