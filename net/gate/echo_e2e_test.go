package gate_test

import (
	"bytes"
	"testing"

	"zonemud/server/servertest"
)

const optEcho = 1

// negotiationOf drops every option command but ECHO's from b, so what is
// left is the text and the ECHO commands in the order the client got them.
func negotiationOf(b []byte) []byte {
	var out []byte
	for i := 0; i < len(b); i++ {
		if b[i] == iac && i+2 < len(b) && b[i+1] >= will && b[i+1] <= dont && b[i+2] != optEcho {
			i += 2
			continue
		}
		out = append(out, b[i])
	}
	return out
}

// between is what a client read after the first after and up to and
// including the first until that follows it.
func between(t *testing.T, raw []byte, after, until string) []byte {
	t.Helper()
	i := bytes.Index(raw, []byte(after))
	if i < 0 {
		t.Fatalf("%q never came; read %q", after, raw)
	}
	rest := raw[i+len(after):]
	j := bytes.Index(rest, []byte(until))
	if j < 0 {
		t.Fatalf("%q never came after %q; read %q", until, after, raw)
	}
	return rest[:j+len(until)]
}

// The server says WILL ECHO before any text about the password, byte for
// byte: a client that types the password when it sees the word "password"
// never shows it in the clear. Echo comes back on (WONT ECHO) once the
// password is read.
func TestEcho_OffBeforeThePasswordText(t *testing.T) {
	srv := servertest.Start(t, nil)
	c := servertest.Dial(t, srv.TelnetAddr(), optEcho)
	c.Create("Echoer", "echo-pass")
	raw := negotiationOf(c.Raw())
	got := between(t, raw, "(y/n)? \xff\xf9", "Choose a password: ")
	want := "\xff\xfb\x01A new character, then. Choose a password to keep it yours.\r\nChoose a password: "
	if string(got) != want {
		t.Errorf("after the name was confirmed the client read\n%q\nwant\n%q", got, want)
	}
	got = between(t, raw, "Choose a password: \xff\xf9", "Type the password again: ")
	if want := "\xff\xfc\x01\r\n\xff\xfb\x01Type the password again: "; string(got) != want {
		t.Errorf("between the two password prompts the client read\n%q\nwant\n%q", got, want)
	}
	c.Quit()

	c = servertest.Dial(t, srv.TelnetAddr(), optEcho)
	c.Login("Echoer", "echo-pass")
	raw = negotiationOf(c.Raw())
	got = between(t, raw, "known? \xff\xf9", "Enter your password: ")
	if want := "\xff\xfb\x01Enter your password: "; string(got) != want {
		t.Errorf("after the name of an existing character the client read\n%q\nwant\n%q", got, want)
	}
	if got := between(t, raw, "Enter your password: \xff\xf9", "\r\n"); string(got) != "\xff\xfc\x01\r\n" {
		t.Errorf("after the password the client read %q, want WONT ECHO and a new line", got)
	}
}
