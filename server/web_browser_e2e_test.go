package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"zonemud/server/servertest"
)

// pageTab is the built-in web client open in a headless Chromium against
// a real server: the test types into the page's input line and reads the
// page's output as a player would see it.
type pageTab struct {
	t   *testing.T
	ctx context.Context
}

func js(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func (p *pageTab) do(actions ...chromedp.Action[chromedp.Void]) {
	p.t.Helper()
	if err := chromedp.Do(p.ctx, actions...); err != nil {
		p.t.Fatal(err)
	}
}

// str evaluates a JavaScript expression that gives a string.
func (p *pageTab) str(expr string) string {
	p.t.Helper()
	s, err := chromedp.Run(p.ctx, chromedp.Evaluate[string](expr))
	if err != nil {
		p.t.Fatalf("%s: %v", expr, err)
	}
	return s
}

// output is the page's game output as the player reads it.
func (p *pageTab) output() string {
	p.t.Helper()
	return p.str(`document.getElementById("output").innerText`)
}

// mark is where the output ends now; waitFor(mark, ...) reads what came
// after it.
func (p *pageTab) mark() int {
	p.t.Helper()
	return len([]rune(p.output()))
}

// wait waits until the JavaScript condition cond holds in the page. The
// poll's bound is the browser context's: it is there for a hang only.
func (p *pageTab) wait(cond string) {
	p.t.Helper()
	if _, err := chromedp.Run(p.ctx, chromedp.Poll[chromedp.Void](cond)); err != nil {
		p.t.Fatalf("waiting for %s: %v\nthe output reads:\n%s", cond, err, p.output())
	}
}

// waitFor waits until text shows in the output after mark, and returns
// the output after mark.
func (p *pageTab) waitFor(mark int, text string) string {
	p.t.Helper()
	p.wait(fmt.Sprintf(`[...document.getElementById("output").innerText].slice(%d).join("").includes(%s)`, mark, js(text)))
	return string([]rune(p.output())[mark:])
}

// typeLine types a line into the input and presses Enter.
func (p *pageTab) typeLine(s string) {
	p.t.Helper()
	p.do(chromedp.SendKeys(chromedp.ID("input"), s+kb.Enter))
}

// doExpect types a command and waits for want after it.
func (p *pageTab) doExpect(cmd, want string) string {
	p.t.Helper()
	m := p.mark()
	p.typeLine(cmd)
	return p.waitFor(m, want)
}

func (p *pageTab) vital(name string) string {
	p.t.Helper()
	return p.str(fmt.Sprintf(`document.querySelector('.vital[data-vital=%q] .bar').getAttribute("aria-valuenow")`, name))
}

func (p *pageTab) screenshot(name string) []byte {
	p.t.Helper()
	png, err := chromedp.Run(p.ctx, chromedp.CaptureScreenshot())
	if err != nil {
		p.t.Fatal(err)
	}
	servertest.SaveArtifact(p.t, name, png)
	return png
}

// A newcomer plays from the built-in page in a real Chromium against the
// real server: creates a character, sees the room in the output and the
// panel, walks (the map grows), says something a telnet player hears and
// reads the telnet player's answer, fights and sees the health bar fall,
// reloads the page and is back in the character without the password,
// and turns on screen-reader mode, after which the game's output is plain
// text. Screenshots of the page in play are kept in ARTIFACTS_DIR.
func TestWebClient_InRealChromium(t *testing.T) {
	cfg := servertest.Config(t)
	cfg.Server.AreasDir = servertest.CopyAreas(t, func(name string, data []byte) []byte {
		if name == "emberfall.toml" {
			return bytes.Replace(data, []byte("# --------------------------------------------------------------- resets\n"), []byte(sparring), 1)
		}
		return data
	})
	srv := servertest.Start(t, cfg)
	tp := servertest.Dial(t, srv.TelnetAddr())
	tp.Create("Telly", "telly-pass")

	p := &pageTab{t: t, ctx: servertest.Browser(t, 1100, 720)}
	p.do(chromedp.Navigate("http://" + srv.WebAddr() + "/"))
	p.wait(`document.getElementById("status").dataset.state === "connected"`)

	// Create a character through the page, as the login dialogue asks.
	p.waitFor(0, "By what name")
	m := p.mark()
	p.typeLine("Pagely")
	p.waitFor(m, "(y/n)")
	m = p.mark()
	p.typeLine("y")
	p.waitFor(m, "assword")
	p.wait(`document.getElementById("input").type === "password"`)
	m = p.mark()
	p.typeLine("pagely-pass")
	p.waitFor(m, "again")
	m = p.mark()
	p.typeLine("pagely-pass")
	got := p.waitFor(m, "Exits:")
	if strings.Contains(p.output(), "pagely-pass") {
		t.Fatalf("the password shows in the page:\n%s", p.output())
	}
	p.wait(`document.getElementById("input").type === "text"`)

	// The room: in the output, and in the panel from Room.Info.
	if !strings.Contains(got, "Emberfall") {
		t.Fatalf("the first room is not shown:\n%s", got)
	}
	p.wait(`document.getElementById("room-name").textContent.includes("Emberfall")`)
	p.wait(`document.querySelectorAll("#room-exits button").length > 0`)
	if v := p.vital("hp"); v == "0" || v == "" {
		t.Fatalf("the health bar reads %q after login", v)
	}
	for _, si := range srv.Gate().Sessions() {
		if si.Name == "Pagely" && si.Front != "web" {
			t.Fatalf("the page's session is front %q, want web", si.Front)
		}
	}

	// Speech both ways with a telnet player in the room.
	tp.DoExpect("look", "Pagely")
	p.doExpect("look", "Telly")
	tp.Skip()
	p.doExpect("say hello from a browser", "You say, 'hello from a browser'")
	tp.Expect("Pagely says, 'hello from a browser'")
	m = p.mark()
	tp.Send("say welcome, browser player")
	p.waitFor(m, "Telly says, 'welcome, browser player'")

	// Walk: the panel follows, the map grows.
	first := p.str(`document.getElementById("room-name").textContent`)
	p.doExpect("south", "Exits:")
	p.wait(fmt.Sprintf(`document.getElementById("room-name").textContent !== %s`, js(first)))
	p.wait(`document.querySelectorAll("#map rect").length >= 2`)
	tp.Expect("Pagely leaves south")

	// A fight: the dummy in the cellar hits back, and the health bar falls.
	p.doExpect("get lantern", "You get a brass lantern")
	p.doExpect("hold lantern", "You light a brass lantern")
	p.doExpect("down", "sparring dummy")
	full := p.vital("hp")
	p.doExpect("kill dummy", "You attack a sparring dummy!")
	p.wait(fmt.Sprintf(`document.querySelector('.vital[data-vital="hp"] .bar').getAttribute("aria-valuenow") !== %s`, js(full)))
	if w := p.str(`document.querySelector('.vital[data-vital="hp"] .fill').style.width`); w == "100%" {
		t.Fatalf("the health bar reads %s of %s but is drawn full", p.vital("hp"), full)
	}
	p.screenshot("web-client-fight.png")
	for i := 0; ; i++ {
		m = p.mark()
		p.typeLine("flee")
		out := p.waitFor(m, "> ")
		if strings.Contains(out, "You flee") {
			break
		}
		if strings.Contains(out, "not fighting") {
			t.Fatalf("the fight ended by itself:\n%s", out)
		}
		if i > 40 {
			t.Fatal("flee never succeeded in 40 tries")
		}
	}
	p.doExpect("look", "Exits:")
	room := p.str(`document.getElementById("room-name").textContent`)
	p.screenshot("web-client.png")

	// A reload of the page: back in the character, no password asked.
	p.do(chromedp.Reload())
	p.wait(`document.getElementById("status").dataset.state === "connected"`)
	// The greeting is sent before the page's token is read; the token
	// answers the name question, and no password is asked.
	got = p.waitFor(0, "Exits:")
	if !strings.Contains(got, "Reconnecting. You are where you left off.") || strings.Contains(got, "assword") {
		t.Fatalf("the reload did not go back into the character:\n%s", got)
	}
	p.wait(fmt.Sprintf(`document.getElementById("room-name").textContent === %s`, js(room)))
	p.doExpect("say still me", "You say, 'still me'")
	n := 0
	for _, si := range srv.Gate().Sessions() {
		if si.Name == "Pagely" {
			n++
		}
	}
	if n != 1 {
		t.Fatalf("%d sessions for Pagely after the reload, want 1", n)
	}

	// Screen-reader mode: the game's own setting, its output plain text,
	// the exits a spoken list.
	m = p.mark()
	p.do(chromedp.Click(chromedp.ID("screenreader")))
	p.waitFor(m, "Screen reader mode is on")
	lines := p.str(`String(document.querySelectorAll("#output .line").length)`)
	out := p.doExpect("look", "Exits:")
	p.waitFor(m, "> ")
	exits := ""
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "Exits:") {
			exits = l
		}
	}
	if !strings.HasSuffix(strings.TrimSpace(exits), ".") || !strings.Contains(exits, "up") {
		t.Fatalf("in screen-reader mode the exits read %q, want a spoken list", exits)
	}
	styled := p.str(fmt.Sprintf(`String([...document.querySelectorAll("#output .line")].slice(%s).filter((l) => l.querySelector("span[class], span[style]")).length)`, lines))
	if styled != "0" {
		t.Fatalf("%s lines of screen-reader output are styled:\n%s", styled, p.str(`document.getElementById("output").innerHTML`))
	}
	if d := p.str(`getComputedStyle(document.getElementById("panel-map")).display`); d != "none" {
		t.Fatalf("the map panel shows in screen-reader mode (display %s)", d)
	}
	p.screenshot("web-client-screenreader.png")
}
