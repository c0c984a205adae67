package page_test

import (
	"encoding/json"
	"net/http/httptest"
	"testing"

	"github.com/chromedp/chromedp"

	"zonemud/net/web/page"
)

// jsCases runs in the browser against the page's own modules: the ANSI
// parser, address finding and command splitting. Each case returns what
// it got and what it wanted, so a failure names both.
const jsCases = `(async () => {
  const a = await import("/ansi.js");
  const l = await import("/line.js");
  const runs = (s) => new a.AnsiParser().feed(s).map((t) => t.t === "nl" ? "|" : JSON.stringify([t.text, t.s.fg, t.s.bg, t.s.bold, t.s.underline]));
  const cases = [];
  const eq = (name, got, want) => cases.push({ name, got: JSON.stringify(got), want: JSON.stringify(want) });
  eq("plain", runs("hi\r\nthere"), [JSON.stringify(["hi", null, null, false, false]), "|", JSON.stringify(["there", null, null, false, false])]);
  eq("16 colours and bold", runs("\x1b[1;31mred\x1b[0m x"), [JSON.stringify(["red", {i: 1}, null, true, false]), JSON.stringify([" x", null, null, false, false])]);
  eq("bright and background", runs("\x1b[93;44mY"), [JSON.stringify(["Y", {i: 11}, {i: 4}, false, false])]);
  eq("256 colours", runs("\x1b[38;5;208;48;5;17mo"), [JSON.stringify(["o", {i: 208}, {i: 17}, false, false])]);
  eq("truecolour", runs("\x1b[38;2;10;20;300mt"), [JSON.stringify(["t", {rgb: [10, 20, 255]}, null, false, false])]);
  eq("truecolour with colons", runs("\x1b[38:2::1:2:3mt"), [JSON.stringify(["t", {rgb: [1, 2, 3]}, null, false, false])]);
  eq("underline and its end", runs("\x1b[4mu\x1b[24mv"), [JSON.stringify(["u", null, null, false, true]), JSON.stringify(["v", null, null, false, false])]);
  eq("empty SGR resets", runs("\x1b[32mg\x1b[mn"), [JSON.stringify(["g", {i: 2}, null, false, false]), JSON.stringify(["n", null, null, false, false])]);
  eq("default colours", runs("\x1b[32;41mg\x1b[39;49mn"), [JSON.stringify(["g", {i: 2}, {i: 1}, false, false]), JSON.stringify(["n", null, null, false, false])]);
  eq("other sequences dropped", runs("a\x1b[2Jb\x1b]0;title\x07c\x1b[?25ld\x07"), [JSON.stringify(["abcd", null, null, false, false])]);
  {
    const p = new a.AnsiParser();
    const got = [...p.feed("x\x1b[3"), ...p.feed("1my")].map((t) => [t.text, t.s.fg]);
    eq("a sequence split between frames", got, [["x", null], ["y", {i: 1}]]);
  }
  eq("xterm cube", a.rgbOf(196), [255, 0, 0]);
  eq("xterm grey", a.rgbOf(244), [128, 128, 128]);
  eq("css of 16", a.cssColor({i: 3}), {cls: "c3"});
  eq("css of 256", a.cssColor({i: 21}), {value: "rgb(0, 0, 255)"});
  eq("links", a.findLinks("see https://example.org/a?b=1, or (http://x.y/z_(w)). javascript:alert(1)").map((f) => f.url),
     ["https://example.org/a?b=1", "http://x.y/z_(w)"]);
  eq("no link in text", a.findLinks("a file://etc/passwd and www.x"), []);
  eq("one command", l.splitCommands("look"), ["look"]);
  eq("several commands", l.splitCommands("n;e; say hi;;"), ["n", "e", " say hi"]);
  eq("escaped semicolon", l.splitCommands("say a\\;b;n"), ["say a;b", "n"]);
  eq("empty line", l.splitCommands(""), [""]);
  return JSON.stringify(cases);
})()`

func TestPage_JavaScript(t *testing.T) {
	ctx := browser(t)
	srv := httptest.NewServer(page.Handler())
	defer srv.Close()
	if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/"), chromedp.WaitVisible(chromedp.ID("input"))); err != nil {
		t.Fatal(err)
	}
	out, err := chromedp.Run(ctx, chromedp.Evaluate[string](jsCases, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatal(err)
	}
	var cases []struct{ Name, Got, Want string }
	if err := json.Unmarshal([]byte(out), &cases); err != nil {
		t.Fatalf("the cases did not come back: %v (%s)", err, out)
	}
	if len(cases) == 0 {
		t.Fatal("no case ran")
	}
	for _, c := range cases {
		if c.Got != c.Want {
			t.Errorf("%s: got %s, want %s", c.Name, c.Got, c.Want)
		}
	}
}
