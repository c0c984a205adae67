package gate

import (
	"strings"
	"testing"
)

func TestCleanName(t *testing.T) {
	ok := map[string]string{"aria": "Aria", "ARIA": "Aria", "  bren ": "Bren", "Xy": "Xy", strings.Repeat("a", 20): "A" + strings.Repeat("a", 19)}
	for in, want := range ok {
		if got, why := cleanName(in, nil); got != want || why != "" {
			t.Errorf("cleanName(%q) = %q, %q; want %q", in, got, why, want)
		}
	}
	for _, bad := range []string{"", "a", "a b", "a1", "a-b", "é", "Ärger", "\x1b[31mRed", "na\x00me", "self", "NORTH", "all",
		strings.Repeat("a", 21), "\xff\xfe", "аdmin" /* Cyrillic а */, "zonemud", "rat"} {
		if got, why := cleanName(bad, func(l string) bool { return l == "rat" }); why == "" {
			t.Errorf("cleanName(%q) accepted as %q", bad, got)
		} else if strings.ContainsAny(why, "\x1b\x00") {
			t.Errorf("refusal for %q echoes control characters: %q", bad, why)
		}
	}
}

func FuzzCleanName(f *testing.F) {
	for _, s := range []string{"aria", "", "\x1b[2J", "a b", "ÄÖ", strings.Repeat("z", 30)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		name, why := cleanName(s, nil)
		if why != "" {
			return
		}
		if len(name) < minName || len(name) > maxName {
			t.Fatalf("%q cleaned to %q: bad length", s, name)
		}
		for i := 0; i < len(name); i++ {
			c := name[i]
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
				t.Fatalf("%q cleaned to %q: not a letter at %d", s, name, i)
			}
		}
		if name[0] < 'A' || name[0] > 'Z' || strings.ToLower(name[1:]) != name[1:] {
			t.Fatalf("%q cleaned to %q: not capitalised", s, name)
		}
	})
}

func TestPassword_HashAndCheck(t *testing.T) {
	h, err := hashPassword("correct horse", 64, 1)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(h, "$argon2id$v=19$m=64,t=1,p=1$") {
		t.Fatalf("hash %q is not an argon2id PHC string", h)
	}
	h2, _ := hashPassword("correct horse", 64, 1)
	if h == h2 {
		t.Fatal("two hashes of one password are equal: no salt")
	}
	if ok, err := checkPassword("correct horse", h); !ok || err != nil {
		t.Fatalf("right password: %v, %v", ok, err)
	}
	if ok, err := checkPassword("correct hors", h); ok || err != nil {
		t.Fatalf("wrong password: %v, %v", ok, err)
	}
	for _, bad := range []string{"", "plain", "$argon2id$v=19$m=64,t=1,p=1$$", "$argon2i$v=19$m=64,t=1,p=1$c2FsdA$a2V5", "$argon2id$v=19$m=99999999,t=1,p=1$c2FsdHNhbHQ$a2V5a2V5a2V5a2V5a2V5"} {
		if ok, err := checkPassword("x", bad); ok || err == nil {
			t.Errorf("checkPassword against %q: %v, %v; want a refusal", bad, ok, err)
		}
	}
}

func TestPasswordProblem(t *testing.T) {
	for _, bad := range []string{"", "   ", "short", strings.Repeat("x", 257)} {
		if passwordProblem(bad) == "" {
			t.Errorf("password %q accepted", bad)
		}
	}
	if p := passwordProblem("good enough"); p != "" {
		t.Errorf("good password refused: %s", p)
	}
}

// The output queue never blocks and never grows past its limit: a put that
// would pass it fails and says so, and a close still gets through.
func TestOutQueue_Bounded(t *testing.T) {
	q := newOutQueue(1024)
	chunk := make([]byte, 100)
	n := 0
	for {
		ok, over := q.put(frameText, chunk)
		if over {
			break
		}
		if !ok {
			t.Fatal("put refused without overflow")
		}
		n++
		if n > 100 {
			t.Fatal("queue never filled")
		}
	}
	if n != 9 { // 9 frames of 105 bytes fit in 1024
		t.Fatalf("fitted %d frames, want 9", n)
	}
	if ok, _ := q.put(frameClose, []byte("bye")); !ok {
		t.Fatal("close frame refused on a full queue")
	}
	if ok, _ := q.put(frameText, []byte("x")); ok {
		t.Fatal("frame accepted after close")
	}
	b := q.Pop()
	count := 0
	for len(b) > 0 {
		kind, _, rest, ok := nextFrame(b)
		if !ok {
			t.Fatal("bad frame")
		}
		b = rest
		count++
		if count == 10 && kind != frameClose {
			t.Fatalf("last frame kind %d, want close", kind)
		}
	}
	if count != 10 {
		t.Fatalf("took %d frames, want 10", count)
	}
}
