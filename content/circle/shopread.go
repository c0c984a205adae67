package circle

import (
	"math"
	"strconv"
	"strings"
)

// Shop is one shop of a .shp file, as written.
//
// The file is a list of tilde strings at the top level: "#<vnum>~" starts
// a shop, "$~" ends the file, and any other string is ignored but for the
// version line ("CircleMUD v3.0 Shop File~"), which switches to the
// format of lists ended by -1. Without it a shop has exactly five
// products, five trade types and one room (the old format).
type Shop struct {
	at
	Vnum       int
	V3         bool       // the "v3.0" format of -1 ended lists
	Products   []shopLine // object vnums it makes without end
	BuyProfit  float64    // what a buyer pays: cost x this
	SellProfit float64    // what a seller gets: cost x this
	BuyLine    int
	Types      []shopType // what it buys
	Messages   [7]string  // no item, no item (player), won't buy, keeper broke, player broke, bought, sold
	MsgLine    int
	Temper     int
	TemperLine int
	Bits       flags // WILL_START_FIGHT, WILL_BANK_MONEY
	BitsLine   int
	Keeper     int // mob vnum
	KeeperLine int
	WithWho    flags // TRADE_NOGOOD, ...
	WhoLine    int
	Rooms      []shopLine
	Hours      [4]int // open1, close1, open2, close2
	HoursLine  int
}

// shopLine is a vnum on its line.
type shopLine struct {
	Vnum, Line int
}

// shopType is one trade type: an object type and the keywords an item
// must have to be bought.
type shopType struct {
	Type  int
	Words string
	Line  int
}

// shopMessages names the seven messages, in file order.
var shopMessages = [7]string{
	"keeper has no such item", "player has no such item", "keeper does not buy that",
	"keeper cannot afford it", "player cannot afford it", "after a buy", "after a sale",
}

// shopBitNames and tradeWithNames are the shop's two bitvectors.
var (
	shopBitNames   = []string{"WILL_START_FIGHT", "WILL_BANK_MONEY"}
	tradeWithNames = []string{"NOGOOD", "NOEVIL", "NONEUTRAL", "NOMAGE", "NOCLERIC", "NOTHIEF", "NOWARRIOR"}
)

// shopVersionTag marks the v3.0 format.
const shopVersionTag = "v3.0"

// The old format's fixed list lengths.
const (
	oldShopProducts = 5
	oldShopTypes    = 5
)

// maxShopList bounds a -1 ended list: tbaMUD keeps at most 100 products
// to a shop; a list past this lost its -1.
const maxShopList = 1000

// readShops reads a .shp file.
func (w *World) readShops(file string, data []byte) {
	r := newReader(file, data)
	if r.latin {
		w.note(file, 0, KindApproximated, "not UTF-8: read as Latin-1 and written as UTF-8")
	}
	v3 := false
	prev := -1
	for {
		l, ok := r.peek()
		if !ok {
			w.note(file, len(r.lines), KindApproximated, "the shop file has no $~ at its end; read to the end of the file")
			return
		}
		t := strings.TrimSpace(l)
		switch {
		case t == "":
			r.next++
			continue
		case strings.HasPrefix(t, "$"):
			return
		case strings.HasPrefix(t, "#"):
			r.next++
			line := r.lineNo()
			num, _, _ := strings.Cut(t[1:], "~")
			vnum, err := atoi(strings.TrimSpace(num))
			if err != nil || vnum < 0 || vnum > maxVnum {
				w.note(file, line, KindError, "expected #<vnum>~ to start a shop, got %q; skipped to the next shop", clip(t))
				r.skipRecord()
				continue
			}
			if vnum <= prev {
				w.note(file, line, KindApproximated, "shop %d is out of order (after %d); read all the same", vnum, prev)
			}
			prev = vnum
			s, perr := r.shop(vnum, line, v3)
			if perr != nil {
				w.note(file, perr.line, KindError, "shop %d: %s; the shop is skipped", vnum, perr.msg)
				r.skipRecord()
				continue
			}
			if first, ok := w.Shops[vnum]; ok {
				w.dup("shop", vnum, first.at, file, line)
				continue
			}
			w.Shops[vnum] = s
		default:
			// Any other string: the version line, or text the engine skips.
			line := r.next + 1
			s, perr := r.tilde("the version line")
			if perr != nil {
				w.note(file, perr.line, KindError, "expected #<vnum>~, $~ or the version line, got %q; the rest of the file is skipped", clip(t))
				return
			}
			if strings.Contains(s, shopVersionTag) {
				v3 = true
			} else if line > 1 || len(w.Shops) > 0 {
				w.note(file, line, KindDropped, "%q is not a shop; skipped, as the engine skips it", clip(oneLine(s)))
			}
		}
	}
}

// shop reads the rest of one shop after its #<vnum>~ line.
func (r *reader) shop(vnum, line int, v3 bool) (*Shop, *parseError) {
	s := &Shop{at: at{r.file, line}, Vnum: vnum, V3: v3}
	var err *parseError
	if s.Products, err = r.shopList(v3, oldShopProducts, "an object vnum it makes"); err != nil {
		return nil, err
	}
	if s.BuyProfit, err = r.shopFloat("the buy profit (what a buyer pays, times the cost)"); err != nil {
		return nil, err
	}
	s.BuyLine = r.lineNo()
	if s.SellProfit, err = r.shopFloat("the sell profit (what a seller gets, times the cost)"); err != nil {
		return nil, err
	}
	if s.Types, err = r.shopTypes(v3); err != nil {
		return nil, err
	}
	s.MsgLine = r.next + 1
	for i := range s.Messages {
		if s.Messages[i], err = r.tilde("the message: " + shopMessages[i]); err != nil {
			return nil, err
		}
	}
	n, err := r.ints(1, "<temper>")
	if err != nil {
		return nil, err
	}
	s.Temper, s.TemperLine = n[0], r.lineNo()
	if s.Bits, err = r.shopFlags("<shop flags>"); err != nil {
		return nil, err
	}
	s.BitsLine = r.lineNo()
	if n, err = r.ints(1, "<keeper mob vnum>"); err != nil {
		return nil, err
	}
	s.Keeper, s.KeeperLine = n[0], r.lineNo()
	if s.WithWho, err = r.shopFlags("<trade with flags>"); err != nil {
		return nil, err
	}
	s.WhoLine = r.lineNo()
	if s.Rooms, err = r.shopList(v3, 1, "a room vnum it trades in"); err != nil {
		return nil, err
	}
	got := 0
	for got < 4 {
		l, err := r.nonBlank("<open 1> <close 1> <open 2> <close 2>")
		if err != nil {
			return nil, err
		}
		if got == 0 {
			s.HoursLine = r.lineNo()
		}
		f := strings.Fields(l)
		for i, x := range f {
			v, aerr := atoi(x)
			if aerr != nil {
				if i > 0 {
					break // a comment after the numbers
				}
				return nil, r.fail("expected the opening hours (open 1, close 1, open 2, close 2), got %q", clip(l))
			}
			s.Hours[got] = v
			if got++; got == 4 {
				break
			}
		}
	}
	return s, nil
}

// shopList reads a list of vnums: up to a -1 line in the v3 format, else
// exactly n lines, negative entries being empty.
func (r *reader) shopList(v3 bool, n int, what string) ([]shopLine, *parseError) {
	var out []shopLine
	for i := 0; v3 || i < n; i++ {
		if v3 && i >= maxShopList {
			return nil, r.fail("more than %d entries without the -1 that ends the list of %s", maxShopList, what)
		}
		l, err := r.nonBlank(what + " or -1")
		if err != nil {
			return nil, err
		}
		v, aerr := atoi(firstField(l))
		if aerr != nil {
			if v3 {
				return nil, r.fail("expected %s or -1 to end the list, got %q", what, clip(l))
			}
			return nil, r.fail("expected %s, got %q", what, clip(l))
		}
		if v < 0 {
			if v3 {
				return out, nil
			}
			continue
		}
		out = append(out, shopLine{v, r.lineNo()})
	}
	return out, nil
}

// shopTypes reads the trade types: a type number or name, and keywords.
func (r *reader) shopTypes(v3 bool) ([]shopType, *parseError) {
	var out []shopType
	for i := 0; v3 || i < oldShopTypes; i++ {
		if v3 && i >= maxShopList {
			return nil, r.fail("more than %d trade types without the -1 that ends them", maxShopList)
		}
		l, err := r.nonBlank("a trade type or -1")
		if err != nil {
			return nil, err
		}
		t, _, _ := strings.Cut(l, ";") // a comment
		t = strings.TrimSpace(t)
		typ, words, ok := -1, "", false
		if v, aerr := atoi(firstField(t)); aerr == nil {
			typ, words, ok = v, strings.TrimSpace(strings.TrimPrefix(t, firstField(t))), true
		} else {
			best := ""
			for n, name := range objTypeNames {
				for _, nm := range []string{name, objTypeAlias[n]} {
					if nm != "" && len(nm) > len(best) && len(t) >= len(nm) && strings.EqualFold(t[:len(nm)], nm) {
						best, typ = nm, n
					}
				}
			}
			if best != "" {
				words, ok = strings.TrimSpace(t[len(best):]), true
			}
		}
		if !ok {
			return nil, r.fail("expected a trade type (an object type number or name, then keywords) or -1, got %q", clip(l))
		}
		if typ < 0 {
			if v3 {
				return out, nil
			}
			continue
		}
		out = append(out, shopType{Type: typ, Words: words, Line: r.lineNo()})
	}
	return out, nil
}

// objTypeAlias is the name tbaMUD's item type list gives a type where it
// differs from objTypeNames.
var objTypeAlias = map[int]string{17: "LIQ CONTAINER"}

func (r *reader) shopFloat(what string) (float64, *parseError) {
	l, err := r.nonBlank(what)
	if err != nil {
		return 0, err
	}
	v, perr := strconv.ParseFloat(firstField(l), 64)
	if perr != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, r.fail("expected %s as a number such as 1.5, got %q", what, clip(l))
	}
	return v, nil
}

// shopFlags reads a bitvector line: one field, or four.
func (r *reader) shopFlags(what string) (flags, *parseError) {
	l, err := r.nonBlank(what)
	if err != nil {
		return flags{}, err
	}
	f := strings.Fields(l)
	if len(f) >= 4 && numeric(f[1]) && numeric(f[2]) && numeric(f[3]) {
		f = f[:4] // tbaMUD's four fields
	} else {
		f = f[:1] // one field, and perhaps a comment
	}
	v, ok := parseFlags(f)
	if !ok {
		return flags{}, r.fail("expected %s as a number or letters, got %q", what, clip(l))
	}
	return v, nil
}

func firstField(s string) string {
	f := strings.Fields(s)
	if len(f) == 0 {
		return ""
	}
	return f[0]
}

func numeric(s string) bool {
	_, err := strconv.ParseUint(s, 10, 64)
	return err == nil
}
