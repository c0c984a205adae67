package page_test

import (
	"testing"

	"github.com/chromedp/chromedp"
)

// What a screen reader needs of the page, read from the page in a real
// Chromium: the output is a polite live log that new lines are added to
// (so each is read out as it arrives, nothing re-read), the connection's
// state is a status region, and the input line and the display buttons
// have names.
func TestPage_ReadableByAScreenReader(t *testing.T) {
	r := newStubRig(t)
	r.do(chromedp.Navigate(r.url))
	c := r.accept()
	c.expectGMCP("Core.Hello")
	r.wait(`document.getElementById("status").dataset.state === "connected"`)
	c.binary("The first line.\r\n")
	r.wait(`document.getElementById("output").innerText.includes("The first line.")`)
	r.str(`(window.firstLine = document.getElementById("output").lastElementChild, "")`)
	c.binary("The second line.\r\n> ")
	r.wait(`document.getElementById("output").innerText.includes("The second line.")`)
	for _, check := range []string{
		`document.getElementById("output").getAttribute("role") === "log"`,
		`document.getElementById("output").getAttribute("aria-live") === "polite"`,
		`document.getElementById("output").getAttribute("aria-relevant") === "additions"`,
		`document.getElementById("output").contains(window.firstLine)`, // kept, not re-rendered
		`document.getElementById("status").getAttribute("role") === "status"`,
		`document.getElementById("input").labels[0].textContent === "Command"`,
		`document.getElementById("input").getAttribute("aria-describedby") === "input-hint"`,
		`document.getElementById("font-up").getAttribute("aria-label") === "Larger text"`,
		`document.getElementById("screenreader").labels[0].textContent.trim() === "Screen reader mode"`,
		`document.querySelectorAll('.vital .bar[role="meter"]').length === 3`,
	} {
		if ok, err := chromedp.Run(r.ctx, chromedp.Evaluate[bool](check)); err != nil || !ok {
			t.Errorf("not so: %s (%v)", check, err)
		}
	}
}
