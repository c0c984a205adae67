package circle

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
)

// A generator of CircleMUD worlds the size of tbaMUD's, for the import
// benchmark and for measuring a server on an imported world:
//
//	go test ./content/circle -run TestGenerateWorld -circle-world DIR [-circle-zones 120]
//
// writes a lib/world folder of 120 zones of 100 rooms (12,000 rooms) into
// DIR, for `zonemud import circle DIR OUT`. docs/PERFORMANCE.md
// ("Importing a Diku world") has the figures taken on it.
var (
	genDir   = flag.String("circle-world", "", "write a generated Circle world into this folder (TestGenerateWorld)")
	genZones = flag.Int("circle-zones", 120, "zones of 100 rooms in the generated Circle world")
)

// Per zone of the generated world, roughly tbaMUD's proportions
// (12,700 rooms, 3,500 mobs, 4,700 objects, 330 shops in 189 zones).
const (
	genRooms = 100
	genMobs  = 30
	genObjs  = 40
	genShops = 3
)

var genWords = strings.Fields("old worn grey mossy narrow broad quiet dusty cold damp crooked sunlit " +
	"stone timber iron brick cobbled muddy windswept shadowed gilded cracked")
var genPlaces = strings.Fields("road lane alley square hall chamber passage yard market gate bridge stair " +
	"tower cellar garden shrine court corridor field path")
var genThings = strings.Fields("sword dagger mace shield helm cloak ring amulet lantern torch bread " +
	"flask chest sack key coin gem scroll potion boots")
var genBeasts = strings.Fields("guard beggar rat dog crow thief priest hermit " +
	"farmer wolf bear spider goblin soldier sailor cat")

// genPrey are the beasts a new character can fight and win: they are made
// at levels 1 and 2, as tbaMUD's newbie zones hold rats and stray dogs
// among their guards. loadbot's mix scenario (-prey) fights these.
var genPrey = map[string]bool{"rat": true, "dog": true, "crow": true, "cat": true}

// genKeepers are the shopkeepers' kinds, a kind no other mob is, so that
// a player (and loadbot's mix scenario, -keepers) knows a shop by who
// stands in it. Keepers stay put.
var genKeepers = strings.Fields("baker smith grocer")

func genSentence(rng *rand.Rand) string {
	return fmt.Sprintf("The %s %s %s leads on past a %s %s", genWords[rng.IntN(len(genWords))], genWords[rng.IntN(len(genWords))],
		genPlaces[rng.IntN(len(genPlaces))], genWords[rng.IntN(len(genWords))], genThings[rng.IntN(len(genThings))])
}

// genDesc is a room description of four lines, as a builder writes them.
func genDesc(rng *rand.Rand) string {
	var b strings.Builder
	b.WriteString("   ")
	for i := range 4 {
		b.WriteString(genSentence(rng))
		if i == 1 && rng.IntN(4) == 0 {
			b.WriteString(" under a @Ybright@n sky")
		}
		b.WriteString(".  \n")
	}
	return b.String()
}

// genCircleWorld is a lib/world folder of zones zones, as file paths and
// contents: zone z holds rooms, mobs and objects z*100 to z*100+99 on a
// 10 by 10 grid, a locked door with its key, and up and down exits to
// other zones from five rooms, so a walker crosses the world; zone 30 has
// room 3001, the start.
func genCircleWorld(zones int) map[string][]byte {
	out := map[string][]byte{}
	idx := map[string][]string{}
	// up from room i of zone z goes to room i of zone z+1+s.
	upRooms := map[int]int{5: 0, 27: 2, 49: 6, 61: 12, 83: 30}
	for z := range zones {
		rng := rand.New(rand.NewPCG(uint64(z), 7))
		base := z * 100
		var wld, mob, obj, zon, shp, trg strings.Builder
		for i := range genRooms {
			v := base + i
			fmt.Fprintf(&wld, "#%d\nThe %s %s~\n%s~\n%d %s %d\n", v, capFirst(genWords[rng.IntN(len(genWords))]),
				capFirst(genPlaces[rng.IntN(len(genPlaces))]), genDesc(rng), z, []string{"0", "0", "0", "a", "d", "e"}[rng.IntN(6)], rng.IntN(6))
			exit := func(d, to int, door string) {
				fmt.Fprintf(&wld, "D%d\n~\n%s~\n", d, door)
				flag, key := 0, -1
				if door != "" {
					flag, key = 1, base+99
				}
				fmt.Fprintf(&wld, "%d %d %d\n", flag, key, to)
			}
			door := func(a, b int) string {
				if (a == 44 && b == 45) || (a == 45 && b == 44) {
					return "door oak"
				}
				return ""
			}
			if i >= 10 {
				exit(0, v-10, "")
			}
			if i%10 < 9 {
				exit(1, v+1, door(i, i+1))
			}
			if i < 90 {
				exit(2, v+10, "")
			}
			if i%10 > 0 {
				exit(3, v-1, door(i, i-1))
			}
			if s, ok := upRooms[i]; ok && zones > 1 {
				exit(4, ((z+1+s)%zones)*100+i, "")
				exit(5, ((z-1-s)%zones+zones)%zones*100+i, "")
			}
			if rng.IntN(5) == 0 {
				fmt.Fprintf(&wld, "E\n%s~\n%s.\n~\n", genThings[rng.IntN(len(genThings))], genSentence(rng))
			}
			if i == 1 {
				fmt.Fprintf(&wld, "T %d\n", base)
			}
			wld.WriteString("S\n")
		}
		wld.WriteString("$\n")
		for i := range genMobs {
			v := base + i
			beast := genBeasts[rng.IntN(len(genBeasts))]
			word := genWords[rng.IntN(len(genWords))]
			flags := "b" // sentinel
			if i%3 == 0 {
				flags = "0" // wanders
			}
			level := 1 + rng.IntN(30)
			switch {
			case i < genShops:
				beast, flags = genKeepers[i], "b"
			case genPrey[beast]:
				level = 1 + level%2
			}
			fmt.Fprintf(&mob, "#%d\n%s %s~\na %s %s~\nA %s %s is here.\n~\n   It looks %s.\n~\n", v, beast, word, word, beast, word, beast, word)
			if i%2 == 0 {
				fmt.Fprintf(&mob, "%s 0 %d S\n%d %d %d %dd%d+%d %dd%d+%d\n%d %d\n8 8 %d\n", flags, rng.IntN(2001)-1000,
					level, 20-level/2, 10-level/3, level, 8, level*5, 1+level/10, 4, level/3, level*10, level*level*10, rng.IntN(3))
			} else {
				fmt.Fprintf(&mob, "%s 0 0 0 0 0 0 0 %d E\n%d %d %d %dd%d+%d %dd%d+%d\n%d %d\n8 8 %d\nBareHandAttack: %d\nStr: %d\nE\n", flags, rng.IntN(2001)-1000,
					level, 20-level/2, 10-level/3, level, 8, level*5, 1+level/10, 4, level/3, level*10, level*level*10, rng.IntN(3), rng.IntN(15), 10+rng.IntN(8))
			}
		}
		mob.WriteString("$\n")
		types := []int{5, 9, 9, 11, 1, 19, 17, 15, 18, 8, 2, 10}
		for i := range genObjs {
			v := base + i
			typ := types[i%len(types)]
			if i == 39 {
				typ = 18 // the door's key, base+99 below
				v = base + 99
			}
			thing := genThings[rng.IntN(len(genThings))]
			word := genWords[rng.IntN(len(genWords))]
			wear := "a"
			switch typ {
			case 5:
				wear = "an"
			case 9:
				wear = []string{"ad", "ae", "aj", "ag"}[rng.IntN(4)]
			}
			value := 5 + rng.IntN(500)
			switch typ {
			case 1, 17, 19: // lights, drinks and food are cheap
				value = 2 + value%10
			}
			vals := "0 0 0 0"
			switch typ {
			case 5:
				vals = fmt.Sprintf("0 %d %d %d", 1+rng.IntN(3), 4+rng.IntN(6), rng.IntN(15))
			case 9:
				vals = fmt.Sprintf("%d 0 0 0", 1+rng.IntN(10))
			case 15:
				vals = "30 1 -1 0"
			case 17:
				vals = "10 10 0 0"
			case 19:
				vals = "5 0 0 0"
			case 1:
				vals = "0 0 24 0"
			}
			fmt.Fprintf(&obj, "#%d\n%s %s~\na %s %s~\nA %s %s lies here.~\n~\n%d %s %s\n%s\n%d %d %d\n", v, thing, word, word, thing, word, thing,
				typ, []string{"0", "a", "g"}[rng.IntN(3)], wear, vals, 1+rng.IntN(20), value, rng.IntN(20))
			if rng.IntN(3) == 0 {
				fmt.Fprintf(&obj, "E\n%s %s~\n%s.\n~\n", thing, word, genSentence(rng))
			}
			if typ == 9 || typ == 5 {
				fmt.Fprintf(&obj, "A\n%d %d\n", 1+rng.IntN(5), 1+rng.IntN(2))
			}
		}
		obj.WriteString("$\n")
		fmt.Fprintf(&zon, "#%d\nGenerated~\nZone %d of the %s %s~\n%d %d %d 2\n", z, z, genWords[z%len(genWords)], genPlaces[z%len(genPlaces)], base, base+99, 10+rng.IntN(20))
		for i := range genMobs {
			room := base + rng.IntN(genRooms)
			if i < genShops {
				room = base + 10 + i
			}
			fmt.Fprintf(&zon, "M 0 %d %d %d\n", base+i, 1+rng.IntN(2), room)
			if i%4 == 0 {
				fmt.Fprintf(&zon, "E 1 %d 3 16\n", base) // the zone's first weapon
			}
			if i%5 == 0 {
				fmt.Fprintf(&zon, "G 1 %d 5\n", base+5)
			}
		}
		fmt.Fprintf(&zon, "O 0 %d 1 %d\n", base+7, base+50)
		fmt.Fprintf(&zon, "P 1 %d 3 %d\n", base+5, base+7)
		fmt.Fprintf(&zon, "O 0 %d 1 %d\n", base+99, base+43)
		fmt.Fprintf(&zon, "D 0 %d 1 2\nD 0 %d 3 2\n", base+44, base+45)
		zon.WriteString("S\n$\n")
		shp.WriteString("CircleMUD v3.0 Shop File~\n")
		for i := range genShops {
			// Each shop sells the zone's food and one more item, and buys
			// food and that item's kind back, as a grocer or a smith does.
			other := base + (i+1)*4
			fmt.Fprintf(&shp, "#%d~\n%d\n%d\n-1\n1.%d\n0.%d\n%d\n%d\n-1\n", base+i, base+5, other, 1+rng.IntN(9), 1+rng.IntN(8), types[5], types[(other-base)%len(types)])
			for m := range 7 {
				fmt.Fprintf(&shp, "%%s Message %d.~\n", m)
			}
			open, shut := rng.IntN(8), 16+rng.IntN(13)
			if i < 2 {
				open, shut = 0, 28 // most of tbaMUD's shops never close
			}
			fmt.Fprintf(&shp, "%d\n0\n%d\n0\n%d\n-1\n%d\n%d\n0\n0\n", rng.IntN(2), base+i, base+10+i, open, shut)
		}
		shp.WriteString("$~\n")
		fmt.Fprintf(&trg, "#%d\nGreeting~\n2 g 100\n~\nwecho The wind blows through zone %d.\n~\n$\n", base, z)
		for kind, b := range map[string]*strings.Builder{"wld": &wld, "mob": &mob, "obj": &obj, "zon": &zon, "shp": &shp, "trg": &trg} {
			name := fmt.Sprintf("%d.%s", z, kind)
			out[path.Join(kind, name)] = []byte(b.String())
			idx[kind] = append(idx[kind], name)
		}
	}
	for kind, names := range idx {
		out[path.Join(kind, "index")] = []byte(strings.Join(names, "\n") + "\n$\n")
	}
	return out
}

// TestGenerateWorld writes the generated world into -circle-world, when
// given; without it, it checks a small one imports and loads.
func TestGenerateWorld(t *testing.T) {
	if *genDir == "" {
		files := genCircleWorld(3)
		fsys := fstest.MapFS{}
		for n, b := range files {
			fsys[n] = &fstest.MapFile{Data: b}
		}
		w, err := Read(fsys)
		if err != nil {
			t.Fatal(err)
		}
		res, err := Convert(w, Options{Game: starterGame(t)})
		if err != nil {
			t.Fatal(err)
		}
		set := load(t, res)
		if res.Rooms != 300 || res.Shops != 9 || len(set.Rooms) != 300 || res.SourceErr != 0 {
			t.Errorf("the generated world imports %d rooms (%d loaded), %d shops, %d errors; want 300, 9, 0:%s", res.Rooms, len(set.Rooms), res.Shops, res.SourceErr, notes(res))
		}
		for _, n := range res.Notes {
			if n.Kind == KindBroken {
				t.Errorf("the generated world has a broken reference: %s", n)
			}
		}
		return
	}
	for n, b := range genCircleWorld(*genZones) {
		p := filepath.Join(*genDir, filepath.FromSlash(n))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// BenchmarkImport reads and converts the generated world of 12,000 rooms
// from memory (the files are generated once, before the timer) and
// writes the areas to a temporary folder: what `zonemud import circle`
// does but its final check.
func BenchmarkImport(b *testing.B) {
	files := genCircleWorld(120)
	fsys := fstest.MapFS{}
	size := 0
	for n, data := range files {
		fsys[n] = &fstest.MapFile{Data: data}
		size += len(data)
	}
	game := starterGame(b)
	b.SetBytes(int64(size))
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		w, err := Read(fsys)
		if err != nil {
			b.Fatal(err)
		}
		res, err := Convert(w, Options{Game: game})
		if err != nil {
			b.Fatal(err)
		}
		if res.Rooms != 12000 {
			b.Fatalf("%d rooms converted", res.Rooms)
		}
		if err := Write(filepath.Join(b.TempDir(), "out"), res, false); err != nil {
			b.Fatal(err)
		}
	}
}
