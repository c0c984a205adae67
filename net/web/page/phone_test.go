package page_test

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"zonemud/server/servertest"
)

// On a phone-size screen (390 x 740 CSS pixels) the input line is on the
// screen below the output, the panels sit above the output instead of
// beside it, the text size can be changed, and however much the game
// sends, the scrollback keeps a bounded number of lines, the newest.
func TestPage_PhoneSize(t *testing.T) {
	r := newStubRigIn(t, servertest.Browser(t, 390, 740))
	r.do(chromedp.Navigate(r.url))
	c := r.accept()
	c.expectGMCP("Core.Hello")
	r.wait(`document.getElementById("status").dataset.state === "connected"`)

	var b strings.Builder
	for i := range 3000 {
		fmt.Fprintf(&b, "line %d of the flood\r\n", i)
	}
	c.binary(b.String())
	c.binary("> ")
	r.wait(`document.getElementById("output").innerText.includes("line 2999 of the flood")`)

	geom := r.str(`(() => {
	  const box = (id) => document.getElementById(id).getBoundingClientRect();
	  const i = box("input"), o = box("output"), p = box("panels");
	  const out = [];
	  if (!(i.top >= 0 && i.bottom <= innerHeight && i.height > 0 && i.width > 200)) out.push("input off the screen " + JSON.stringify(i) + " of " + innerHeight);
	  if (!(o.bottom <= i.top + 1)) out.push("output below the input " + JSON.stringify(o));
	  if (!(p.bottom <= o.top + 1)) out.push("panels not above the output " + JSON.stringify(p) + " " + JSON.stringify(o));
	  if (document.documentElement.scrollWidth > innerWidth + 1) out.push("the page scrolls sideways: " + document.documentElement.scrollWidth);
	  return out.join("; ");
	})()`)
	if geom != "" {
		t.Fatal(geom)
	}
	n, err := strconv.Atoi(r.str(`String(document.getElementById("output").childElementCount)`))
	if err != nil || n < 100 || n > 2001 {
		t.Fatalf("%d lines kept after 3,000 (%v), want the scrollback's bound of 2,000", n, err)
	}
	first := r.str(`document.getElementById("output").firstElementChild.innerText`)
	if strings.Contains(first, "line 0 ") {
		t.Fatalf("the oldest line is still there (%q; %d lines kept)", first, n)
	}

	before := r.str(`getComputedStyle(document.getElementById("output")).fontSize`)
	r.do(chromedp.Click(chromedp.ID("font-up")))
	r.wait(fmt.Sprintf(`getComputedStyle(document.getElementById("output")).fontSize !== %q`, before))
	r.do(chromedp.Click(chromedp.ID("panels-toggle")))
	r.wait(`document.getElementById("panels").hidden`)
	r.wait(`document.getElementById("input").getBoundingClientRect().bottom <= innerHeight`)
}
