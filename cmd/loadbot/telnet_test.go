package main

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

// decodeAll feeds chunks to d and returns the text, the marks as "<EOR>" and
// "<GA>" in place, and the replies.
func decodeAll(d *decoder, chunks ...string) (text string, reply []byte) {
	var b strings.Builder
	for _, c := range chunks {
		d.feed([]byte(c), func(p []byte) { b.Write(p) }, func(m mark) {
			switch m {
			case markEOR:
				b.WriteString("<EOR>")
			case markGA:
				b.WriteString("<GA>")
			}
		})
	}
	reply, d.reply = d.reply, nil
	return b.String(), reply
}

func TestDecoder(t *testing.T) {
	for _, tc := range []struct {
		name   string
		chunks []string
		text   string
		reply  string
		eor    bool
	}{
		{"plain text", []string{"hello\r\n"}, "hello\r\n", "", false},
		{"IAC IAC is a literal 255", []string{"a\xff\xffb"}, "a\xffb", "", false},
		{"WILL EOR is agreed", []string{"\xff\xfb\x19x"}, "x", "\xff\xfd\x19", true},
		{"WILL EOR twice is agreed once", []string{"\xff\xfb\x19\xff\xfb\x19"}, "", "\xff\xfd\x19", true},
		{"WILL ECHO is refused", []string{"\xff\xfb\x01"}, "", "\xff\xfe\x01", false},
		{"DO NAWS is refused", []string{"\xff\xfd\x1f"}, "", "\xff\xfc\x1f", false},
		{"DO EOR is refused", []string{"\xff\xfd\x19"}, "", "\xff\xfc\x19", false},
		{"DONT and WONT need no answer", []string{"\xff\xfe\x01\xff\xfc\x01"}, "", "", false},
		{"WONT EOR after WILL", []string{"\xff\xfb\x19\xff\xfc\x19"}, "", "\xff\xfd\x19\xff\xfe\x19", false},
		{"subnegotiation is skipped", []string{"\xff\xfa\x18\x01\xff\xff\x02\xff\xf0ok"}, "ok", "", false},
		{"EOR and GA are marks", []string{"hp> \xff\xefx> \xff\xf9"}, "hp> <EOR>x> <GA>", "", false},
		{"NOP is dropped", []string{"a\xff\xf1b"}, "ab", "", false},
		{"split IAC", []string{"a\xff", "\xfb", "\x19b"}, "ab", "\xff\xfd\x19", true},
		{"split subnegotiation", []string{"\xff\xfa\x1f", "\x00\x50\xff", "\xf0z"}, "z", "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var d decoder
			text, reply := decodeAll(&d, tc.chunks...)
			if text != tc.text {
				t.Errorf("text: got %q, want %q", text, tc.text)
			}
			if string(reply) != tc.reply {
				t.Errorf("reply: got %q, want %q", reply, tc.reply)
			}
			if d.eor != tc.eor {
				t.Errorf("eor: got %v, want %v", d.eor, tc.eor)
			}
		})
	}
}

// A bot with -gmcp agrees to GMCP once and asks for what Mudlet asks for;
// one without refuses it; either way GMCP messages are skipped as text.
func TestDecoder_GMCP(t *testing.T) {
	offer := "\xff\xfb\xc9"
	msg := "\xff\xfa\xc9Comm.Channel.Text {\"text\":\"hi\"}\xff\xf0"
	var on decoder
	on.gmcp = true
	text, reply := decodeAll(&on, offer+offer+msg+"ok")
	want := "\xff\xfd\xc9\xff\xfa\xc9" + gmcpSupports + "\xff\xf0"
	if text != "ok" || string(reply) != want {
		t.Fatalf("with -gmcp: text %q, reply %q; want \"ok\" and %q", text, reply, want)
	}
	var off decoder
	text, reply = decodeAll(&off, offer+msg+"ok")
	if text != "ok" || string(reply) != "\xff\xfe\xc9" {
		t.Fatalf("without -gmcp: text %q, reply %q; want \"ok\" and a refusal", text, reply)
	}
}

func TestStream_Prompts(t *testing.T) {
	const willEOR = "\xff\xfb\x19"
	for _, tc := range []struct {
		name   string
		chunks []string // fed in turn; "|sent" records a line sent
		want   []int    // prompts per chunk
	}{
		{"EOR", []string{willEOR, "Room\r\nExits: north\r\n<hp> \xff\xef"}, []int{0, 1}},
		{"EOR agreed: bare > is not a prompt", []string{willEOR, "say a> "}, []int{0, 0}},
		{"EOR agreed: GA is not a prompt", []string{willEOR, "hp> \xff\xf9"}, []int{0, 0}},
		{"two EOR prompts in one read", []string{willEOR, "a> \xff\xefb> \xff\xef"}, []int{0, 2}},
		{"EOR with no text is the same prompt", []string{willEOR, "a> \xff\xef", "\xff\xef"}, []int{0, 1, 0}},
		{"bare > at the end of a read", []string{"Room\r\n<hp> "}, []int{1}},
		{"> inside a read is text", []string{"you say 'a> b'\r\n"}, []int{0}},
		{"> then GA in the next read is one prompt", []string{"<hp> ", "\xff\xf9"}, []int{1, 0}},
		{"GA prompts", []string{"a> \xff\xf9b> \xff\xf9"}, []int{2}},
		{"CR and NUL after > do not hide it", []string{"<hp> \r\x00"}, []int{1}},
		{"question mark arrives after the answer", []string{willEOR, "password again: ", "|sent", "\xff\xef", "Room\r\n> \xff\xef"}, []int{0, 0, 0, 0, 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var s stream
			s.keep = true
			var got []int
			for _, c := range tc.chunks {
				if c == "|sent" {
					s.sent()
					got = append(got, 0)
					continue
				}
				got = append(got, s.feed([]byte(c)))
			}
			if fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Errorf("prompts per read: got %v, want %v", got, tc.want)
			}
		})
	}
}

func TestStream_KeepsLoginText(t *testing.T) {
	var s stream
	s.keep = true
	s.feed(bytes.Repeat([]byte("x"), 3*loginTextMax))
	s.feed([]byte("By what NAME are you known? "))
	if len(s.text) > loginTextMax {
		t.Errorf("kept %d bytes, want at most %d", len(s.text), loginTextMax)
	}
	if !containsFold(s.text, "name") {
		t.Errorf("question lost from kept text")
	}
	s.sent()
	if len(s.text) != 0 {
		t.Errorf("text after sent(): %q", s.text)
	}
	s.stopKeeping()
	s.feed([]byte("more"))
	if s.text != nil {
		t.Errorf("text kept after stopKeeping: %q", s.text)
	}
}

func TestContainsFold(t *testing.T) {
	for _, tc := range []struct {
		s, needle string
		want      bool
	}{
		{"By what Name?", "name", true},
		{"Is that right (Y/N)?", "(y/n)", true},
		{"WRONG PASSWORD.", "wrong password", true},
		{"nam", "name", false},
		{"", "name", false},
	} {
		if got := containsFold([]byte(tc.s), tc.needle); got != tc.want {
			t.Errorf("containsFold(%q, %q): got %v, want %v", tc.s, tc.needle, got, tc.want)
		}
	}
}

// FuzzDecoder checks that the decoder does not depend on how the bytes are
// split into reads, and leaves IAC-free input as it is.
func FuzzDecoder(f *testing.F) {
	f.Add([]byte("hello> \xff\xef"), uint(3))
	f.Add([]byte("\xff\xfb\x19\xff\xfd\x1f\xff\xfa\x18\x01\xff\xf0x"), uint(5))
	f.Add([]byte("a\xff\xffb\xff\xf9"), uint(2))
	f.Fuzz(func(t *testing.T, data []byte, split uint) {
		var whole, parts decoder
		wt, wr := decodeAll(&whole, string(data))
		cut := 0
		if len(data) > 0 {
			cut = int(split % uint(len(data)+1))
		}
		pt, pr := decodeAll(&parts, string(data[:cut]), string(data[cut:]))
		if wt != pt || !bytes.Equal(wr, pr) || whole.eor != parts.eor {
			t.Fatalf("split at %d changes the result: %q %q vs %q %q", cut, wt, wr, pt, pr)
		}
		if bytes.IndexByte(data, cmdIAC) < 0 && wt != string(data) {
			t.Fatalf("text without IAC changed: %q -> %q", data, wt)
		}
	})
}

func TestStream_AnswerAfterMarker(t *testing.T) {
	const willEOR = "\xff\xfb\x19"
	for _, tc := range []struct {
		name    string
		markers []string
		chunks  []string
		want    []bool // answered per chunk
	}{
		{"chatter prompt then the answer", []string{"You say"},
			[]string{"Bob says, 'hi'\r\n> \xff\xef", "You say, 'hi'\r\n> \xff\xef"}, []bool{false, true}},
		{"both in one read", []string{"You say"},
			[]string{"Bob says, 'hi'\r\n> \xff\xefYou say, 'hi'\r\n> \xff\xef"}, []bool{true}},
		{"marker split across reads", []string{"Exits:"},
			[]string{"Room\r\nExi", "ts: north\r\n", "> \xff\xef"}, []bool{false, false, true}},
		{"marker split across telnet runs", []string{"You say"},
			[]string{"You s\xff\xffay"}, []bool{false}},
		{"no marker: any prompt", nil, []string{"whatever> \xff\xef"}, []bool{true}},
		{"answered once", []string{"You say"},
			[]string{"You say, 'a'\r\n> \xff\xef", "You say, 'b'\r\n> \xff\xef"}, []bool{true, false}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var s stream
			s.feed([]byte(willEOR))
			var ms [][]byte
			for _, m := range tc.markers {
				ms = append(ms, []byte(m))
			}
			s.arm(ms)
			var got []bool
			for _, c := range tc.chunks {
				s.feed([]byte(c))
				got = append(got, s.answered)
			}
			if fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Errorf("answered per read: got %v, want %v", got, tc.want)
			}
		})
	}
}

func TestStream_Exits(t *testing.T) {
	for _, tc := range []struct {
		name   string
		chunks []string
		want   []string
	}{
		{"plain", []string{"Exits: north east\r\n"}, []string{"north", "east"}},
		{"coloured and split", []string{"\x1b[36mExits: no", "rth [west] up\x1b[0m\r\n"}, []string{"north", "up"}},
		{"screen reader", []string{"Exits: north, south (closed) and down.\r\n"}, []string{"north", "down"}},
		{"none", []string{"Exits: none\r\n"}, []string{}},
		{"the last one counts", []string{"Exits: north\r\nExits: south\r\n"}, []string{"south"}},
		{"not at the start of a line", []string{"Bob says, 'Exits: north'\r\n"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := stream{trackExits: true}
			saw := false
			for _, c := range tc.chunks {
				s.feed([]byte(c))
				saw = saw || s.sawExits
			}
			if tc.want == nil {
				if saw {
					t.Errorf("found exits %v in a line that is not an exits line", s.exits)
				}
				return
			}
			if !saw || fmt.Sprint(s.exits) != fmt.Sprint(tc.want) {
				t.Errorf("exits: got %v (seen %v), want %v", s.exits, saw, tc.want)
			}
		})
	}
}

// A say's stamp is read back from another player's say, never from the
// speaker's own echo or a line without one, across runs of text.
func TestStream_HearsStamps(t *testing.T) {
	s := &stream{hear: true}
	say := appendStamp([]byte("hello"), 123456789)
	in := "You say, '" + string(say) + "'\r\n" +
		"Botab says, '\x1b[1;37m" + string(say[:8]) // split inside the stamp
	s.feed([]byte(in))
	s.feed([]byte(string(say[8:]) + "\x1b[0m'\r\nBotac says, 'hello'\r\nBotad says, 'hello zz12x4zz'\r\n> "))
	if len(s.heard) != 1 || s.heard[0] != 123456789 {
		t.Fatalf("heard %v, want [123456789]", s.heard)
	}
}
