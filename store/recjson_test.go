package store

import (
	"bytes"
	"encoding/json"
	"math/rand"
	"reflect"
	"testing"
	"testing/quick"
)

// nastyStrings are what a name, title, alias or prompt could hold that
// JSON must escape or repair.
var nastyStrings = []string{
	"", "Aria", `quote " and \ backslash`, "<b>&amp;</b>", "tab\tnew\nline\rcr\bbs\fff",
	"\x00\x01\x1f\x7f", "caf\u00e9 \u65e5\u672c", "\u2028\u2029", "bad \xff\xfe utf8 \xc0\x80 \xed\xa0\x80",
	"cut \xe6\x97", "emoji \U0001F600", "{$hp}/{$maxhp} >",
}

// randomChar is a character with every field given a random value (or
// left empty, at random), strings drawn now and then from nastyStrings.
func randomChar(t *testing.T, r *rand.Rand) *Character {
	t.Helper()
	v, ok := quick.Value(reflect.TypeOf(Character{}), r)
	if !ok {
		t.Fatal("quick.Value: no value for Character")
	}
	c := v.Interface().(Character)
	var nasty func(v reflect.Value)
	nasty = func(v reflect.Value) {
		switch v.Kind() {
		case reflect.String:
			if r.Intn(3) == 0 {
				v.SetString(nastyStrings[r.Intn(len(nastyStrings))])
			}
		case reflect.Pointer:
			if !v.IsNil() {
				nasty(v.Elem())
			}
		case reflect.Struct:
			for i := 0; i < v.NumField(); i++ {
				nasty(v.Field(i))
			}
		case reflect.Slice:
			if r.Intn(4) == 0 {
				v.Set(reflect.Zero(v.Type()))
				return
			}
			if r.Intn(3) == 0 {
				v.SetLen(min(v.Len(), r.Intn(4)))
			}
			for i := 0; i < v.Len(); i++ {
				nasty(v.Index(i))
			}
		case reflect.Map:
			if r.Intn(4) == 0 {
				v.Set(reflect.Zero(v.Type()))
				return
			}
			if v.Type().Key().Kind() == reflect.String && r.Intn(2) == 0 {
				v.SetMapIndex(reflect.ValueOf(nastyStrings[r.Intn(len(nastyStrings))]).Convert(v.Type().Key()), reflect.Zero(v.Type().Elem()))
			}
		}
	}
	nasty(reflect.ValueOf(&c).Elem())
	if r.Intn(4) == 0 {
		// A near-empty character: the omitempty fields all empty.
		c = Character{Name: c.Name, Epoch: c.Epoch}
	}
	return &c
}

// TestRecordJSON_MatchesEncodingJSON: the hand-written encodings of the
// records a checkpoint writes are byte for byte json.Marshal's, over
// random records with every field filled in (a field added to a record
// type and not to recjson.go fails here), so databases written before and
// after read the same.
func TestRecordJSON_MatchesEncodingJSON(t *testing.T) {
	r := rand.New(rand.NewSource(25))
	for i := 0; i < 3000; i++ {
		c := randomChar(t, r)
		want, err := json.Marshal(c)
		if err != nil {
			t.Fatal(err)
		}
		if got := appendCharJSON(nil, c); !bytes.Equal(got, want) {
			t.Fatalf("character %d:\n got %s\nwant %s", i, got, want)
		}
		// The record whole: the header, the checksum, and read back.
		rec := appendChar([]byte("prefix"), c)[len("prefix"):]
		var back, viaJSON Character
		if err := decodeChar(rec, &back); err != nil {
			t.Fatalf("character %d: decodeChar: %v", i, err)
		}
		if err := json.Unmarshal(want, &viaJSON); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(back, viaJSON) {
			t.Fatalf("character %d: read back as\n%+v\nwant\n%+v", i, back, viaJSON)
		}

		want, _ = json.Marshal(c.Items)
		if got := appendItemsJSON(nil, c.Items); !bytes.Equal(got, want) {
			t.Fatalf("items %d:\n got %s\nwant %s", i, got, want)
		}
		var p Placement
		pv, _ := quick.Value(reflect.TypeOf(p), r)
		p = pv.Interface().(Placement)
		for _, f := range []*string{&p.Zone, &p.Room, &p.AnchorZone, &p.AnchorRoom} {
			switch r.Intn(3) {
			case 0:
				*f = ""
			case 1:
				*f = nastyStrings[r.Intn(len(nastyStrings))]
			}
		}
		want, _ = json.Marshal(p)
		if got := appendPlacementJSON(nil, &p); !bytes.Equal(got, want) {
			t.Fatalf("placement %d:\n got %s\nwant %s", i, got, want)
		}
	}
}

// FuzzJSONString: a string is quoted as json.Marshal quotes it.
func FuzzJSONString(f *testing.F) {
	for _, s := range nastyStrings {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want, _ := json.Marshal(s)
		if got := appendJSONString(nil, s); !bytes.Equal(got, want) {
			t.Fatalf("%q:\n got %s\nwant %s", s, got, want)
		}
	})
}
