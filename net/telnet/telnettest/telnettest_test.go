package telnettest

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
)

func TestParseBytes(t *testing.T) {
	for in, want := range map[string][]byte{
		``:                               nil,
		`IAC SB TTYPE SEND IAC SE`:       {255, 250, 24, 1, 255, 240},
		`IAC EOR_CMD IAC DO EOR`:         {255, 239, 255, 253, 25},
		`"a b\r\n" 0x00 0xff "\xc3\xa9"`: {'a', ' ', 'b', '\r', '\n', 0, 255, 0xc3, 0xa9},
		"  IAC\tWILL\nGMCP  ":            {255, 251, 201},
		`IAC SB CHARSET ACCEPTED " UTF-8" IAC SE`: append([]byte{255, 250, 42, 2}, append([]byte(" UTF-8"), 255, 240)...),
	} {
		got, err := ParseBytes(in)
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("ParseBytes(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, bad := range []string{`iac`, `0x1`, `0xzz`, `0x100`, `"open`, `IAC"x"`} {
		if got, err := ParseBytes(bad); err == nil {
			t.Errorf("ParseBytes(%q) = %v, want an error", bad, got)
		}
	}
}

func TestParseTranscript(t *testing.T) {
	const text = `# a comment
S: IAC DO TTYPE
S: IAC WILL EOR

C: IAC WILL TTYPE
# comments sit between the lines of a block
C: IAC DO EOR
S: IAC SB TTYPE SEND IAC SE
E: ClientChanged
X: eor=true terminal="ANSI 256" name=""

A: EchoOff IAC WILL ECHO
C: IAC DO ECHO
A: EchoOn IAC WONT ECHO
E: 
`
	tr, err := ParseTranscript(strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	want := []Block{
		{Line: 1, Server: []byte{255, 253, 24, 255, 251, 25}},
		{Line: 5, Ops: []Op{{Bytes: []byte{255, 251, 24}}, {Bytes: []byte{255, 253, 25}}},
			Server: []byte{255, 250, 24, 1, 255, 240}, Events: []string{"ClientChanged"}, HasEvents: true,
			Checks: []string{"eor=true", `terminal="ANSI 256"`, `name=""`}},
		{Line: 12, Ops: []Op{{Action: "EchoOff", Bytes: []byte{255, 251, 1}}, {Bytes: []byte{255, 253, 1}}, {Action: "EchoOn", Bytes: []byte{255, 252, 1}}},
			HasEvents: true},
	}
	if !reflect.DeepEqual(tr.Blocks, want) {
		t.Fatalf("got %+v\nwant %+v", tr.Blocks, want)
	}
}

func TestParseTranscript_Errors(t *testing.T) {
	for _, bad := range []string{
		"S IAC",
		"Q: IAC",
		"C: IAC FOO",
		"A: EchoMaybe IAC WILL ECHO",
		`X: name="open`,
		`X: name="a"b`,
	} {
		if _, err := ParseTranscript(strings.NewReader(bad)); err == nil {
			t.Errorf("ParseTranscript(%q) succeeded, want an error", bad)
		}
	}
}
