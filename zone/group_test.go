package zone_test

import (
	"strings"
	"testing"
	"testing/synctest"

	"zonemud/store"
	"zonemud/world"
)

const forestEdge = "whisperwood:room:forest_edge"

// atEdge is a character stored at the forest's edge, one step north of
// Emberfall's gate: a zone border.
func atEdge(name string) *store.Character {
	return &store.Character{Name: name, Epoch: 1, Level: 5, Place: store.Placement{Zone: "whisperwood", Room: forestEdge}}
}

// A party walks across a zone border together, each follower by their own
// move: a sleeping follower stays behind. gsay reaches a member in another
// zone, and group lists every member's vitals, those elsewhere answered by
// their own zone.
func TestGroup_WalksBorderAndTalksAcrossZones(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := instWorld(t, world.InstanceConfig{}, atEdge("Ada"), atEdge("Bo"), atEdge("Cy"))
		ada, bo, cy := enterAs(t, w, "Ada"), enterAs(t, w, "Bo"), enterAs(t, w, "Cy")
		bo.do("follow Ada")
		cy.do("follow Ada")
		ada.do("group Bo")
		mark := ada.mark()
		ada.do("group Cy")
		ada.expect(mark, "Cy joins your party.")
		cy.do("sleep")
		ada.do("open gate")

		mark = bo.mark()
		ada.do("south")
		bo.expect(mark, "You follow Ada.")
		bo.expect(mark, "The North Gate")
		if za, zb := where(t, w, "Ada").ID(), where(t, w, "Bo").ID(); za != "emberfall" || zb != "emberfall" {
			t.Fatalf("Ada in %s, Bo in %s after Ada went south over the border; want both in emberfall", za, zb)
		}
		if zc := where(t, w, "Cy").ID(); zc != "whisperwood" {
			t.Fatalf("Cy, asleep, followed into %s", zc)
		}

		// gsay from emberfall reaches Cy in whisperwood (asleep, as a tell would).
		mark = cy.mark()
		ada.do("gsay hold the gate")
		cy.expect(mark, "Ada tells the party, '{G}hold the gate{x}'")
		mark = ada.mark()
		cy.do("gtell coming")
		ada.expect(mark, "Cy tells the party, '{G}coming{x}'")

		// The list: Ada and Bo from here, Cy answered by whisperwood.
		mark = ada.mark()
		ada.do("group")
		ada.expect(mark, "Ada's party:")
		ada.expect(mark, "Bo ")
		ada.expect(mark, "Cy ")
		got := ada.since(mark)
		if !strings.Contains(got, "in Edge of the Whisperwood") || !strings.Contains(got, "in The North Gate") {
			t.Fatalf("group does not say where each member is:\n%s", got)
		}
		if strings.Count(got, "hp ") != 3 {
			t.Fatalf("group shows %d members' vitals, want 3:\n%s", strings.Count(got, "hp "), got)
		}

		mark = bo.mark()
		bo.do("unfollow")
		bo.expect(mark, "You stop following Ada.")
		ada.do("north")
		if zb := where(t, w, "Bo").ID(); zb != "emberfall" {
			t.Fatalf("Bo, no longer following, walked to %s", zb)
		}
	})
}

// Bad input gets a clear refusal, and ANSI or telnet bytes in a gsay never
// reach another player.
func TestGroup_BadInput(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := instWorld(t, world.InstanceConfig{}, atEdge("Ada"), atEdge("Bo"))
		ada, bo := enterAs(t, w, "Ada"), enterAs(t, w, "Bo")
		for _, c := range []struct{ line, want string }{
			{"gsay hello", "You are in no party."},
			{"follow Ada", "You follow no one."},
			{"follow self", "You follow no one."},
			{"unfollow", "You follow no one."},
			{"group Bo", "Bo does not follow you; they must follow you first."},
			{"group Ada", "You lead yourself already."},
		} {
			mark := ada.mark()
			ada.do(c.line)
			ada.expect(mark, c.want)
		}
		bo.do("follow Ada")
		mark := ada.mark()
		ada.do("follow Bo")
		ada.expect(mark, "You cannot follow someone who follows you.")
		ada.do("group Bo")
		for _, c := range []struct{ line, want string }{
			{"gsay", "Tell your party what?"},
			{"gsay \x1b\x07\xff\xf4", "Tell your party what?"},
			{"gsay " + strings.Repeat("x", 5000), "too long"},
		} {
			mark := ada.mark()
			ada.do(c.line)
			ada.expect(mark, c.want)
		}
		mark = bo.mark()
		ada.do("gsay \x1b[31mred\xff\xfb\x01 {R}markup")
		bo.expect(mark, "Ada tells the party, '")
		got := bo.since(mark)
		if strings.ContainsAny(got, "\x1b\x01") || strings.Contains(got, string([]byte{0xff})) {
			t.Fatalf("control bytes reached Bo: %q", got)
		}
	})
}
