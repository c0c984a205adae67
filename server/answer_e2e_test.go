package server_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"zonemud/server/servertest"
	"zonemud/zone"
)

// promptEnd finds the first end of a prompt (IAC GA or IAC EOR) in raw
// telnet bytes, or -1.
func promptEnd(raw []byte) int {
	ga, eor := bytes.Index(raw, []byte{255, 249}), bytes.Index(raw, []byte{255, 239})
	switch {
	case ga < 0:
		return eor
	case eor < 0 || ga < eor:
		return ga
	}
	return eor
}

// plain is raw telnet bytes with telnet commands and colour sequences
// taken out.
func plain(raw []byte) string {
	var b strings.Builder
	for i := 0; i < len(raw); i++ {
		switch x := raw[i]; {
		case x == 255 && i+1 < len(raw):
			i++
			if raw[i] >= 251 && raw[i] <= 254 {
				i++ // option negotiation: one more byte
			}
		case x == 0x1b:
			for i++; i < len(raw) && (raw[i] == '[' || raw[i] < 0x40 || raw[i] > 0x7e); i++ {
			}
		default:
			b.WriteByte(x)
		}
	}
	return b.String()
}

// Every command answered off the zone's goroutine sends its answer before
// its prompt, byte for byte on the wire, so a client that takes GA or EOR
// for "answer complete" sees the answer. The walk covers every command
// marked async; a command marked later without a step here fails.
func TestAnswers_AsyncCommandsAnswerBeforeThePrompt(t *testing.T) {
	cfg := servertest.Config(t)
	cfg.Server.AreasDir = quietAreas(t)
	cfg.World.Admins = []string{"Ada"}
	servertest.Admin(t, cfg, "Ada", "secret-ada")
	srv := servertest.Start(t, cfg)
	ada := servertest.Dial(t, srv.TelnetAddr())
	ada.Login("Ada", "secret-ada")
	bob := servertest.Dial(t, srv.TelnetAddr())
	bob.Create("Bob", "secret-bob")
	ada.Expect("Bob has entered the world.")
	ada.Expect("> ")

	steps := []struct{ cmd, line, want string }{
		{"sshkey", "sshkey list", "You have no SSH keys."},
		{"stat", "stat bob", "Bob"},
		{"sessions", "sessions", "Bob"},
		{"ban", "ban 10.9.9.0/24 testing", "10.9.9.0/24"},
		{"ban", "ban", "10.9.9.0/24"},
		{"unban", "unban 10.9.9.0/24", "10.9.9.0/24"},
		{"force", "force save", "Every character is saved"},
		{"backup", "backup", "Backup written:"},
		{"grant", "grant bob builder ashridge", "Bob is now a builder of ashridge."},
		{"grant", "grant bob", "builder"},
		{"revoke", "revoke bob builder", "Bob"},
		{"transfer", "transfer bob emberfall:room:inn", "You bring Bob to emberfall:room:inn."},
		{"goto", "goto bob", "The Banked Fire"},
		{"purge", "purge bob emberfall:item:circlet", "Bob carries nothing that answers to emberfall:item:circlet."},
		{"freeze", "freeze bob", "Bob is frozen"},
		{"freeze", "freeze bob", "Bob is thawed."},
		{"log", "log bob", "Every line Bob types"},
		{"log", "log bob", "no longer logged"},
		{"reload", "reload", "nothing in the files has changed"},
		{"rstat", "rstat whisperwood:room:forest_edge", "forest_edge"},
		{"mstat", "mstat whisperwood:mob:wolf", "wolf"},
		{"ostat", "ostat ashridge:item:torch", "torch"},
		{"where", "where bob", "Bob"},
		{"where", "where rat", "rat"},
		{"scripterrors", "scripterrors all", "No script has failed lately"},
		{"mail", "mail", "You have no mail."},
	}
	walked := map[string]bool{}
	for _, s := range steps {
		walked[s.cmd] = true
	}
	for _, name := range zone.AsyncCommandsForTest() {
		if !walked[name] {
			t.Errorf("command %s is answered asynchronously and has no step in this walk", name)
		}
	}
	for i, s := range steps {
		start := len(ada.Raw())
		ada.Skip()
		ada.Send(s.line)
		ada.Expect(s.want)
		// A line typed next is answered after the async answer's prompt,
		// so once its answer is read, that prompt's bytes are in too.
		mark := fmt.Sprintf("step-%d-done", i)
		ada.Send("say " + mark)
		ada.Expect("You say, '" + mark + "'")
		ada.Expect("> ")
		raw := ada.Raw()[start:]
		// The last prompt's text was read before start; its GA or EOR
		// may have come in the next read.
		if promptEnd(raw) == 0 {
			raw = raw[2:]
		}
		end := promptEnd(raw)
		if end < 0 {
			t.Fatalf("%s: no prompt came:\n%q", s.line, plain(raw))
		}
		if before := plain(raw[:end]); !strings.Contains(before, s.want) {
			t.Errorf("%s: the prompt came before the answer %q; before the first prompt:\n%q\nall:\n%q", s.line, s.want, before, plain(raw))
		}
	}
}

// A line typed while a command waits for its answer runs after that
// answer: commands answer in the order they were typed.
func TestAnswers_LinesTypedMeanwhileWaitTheirTurn(t *testing.T) {
	cfg := servertest.Config(t)
	cfg.Server.AreasDir = quietAreas(t)
	cfg.World.Admins = []string{"Ada"}
	servertest.Admin(t, cfg, "Ada", "secret-ada")
	srv := servertest.Start(t, cfg)
	ada := servertest.Dial(t, srv.TelnetAddr())
	ada.Login("Ada", "secret-ada")
	ada.Skip()
	start := len(ada.Raw())
	ada.Send("backup")
	ada.Send("say after the backup")
	ada.Expect("Backup written:")
	ada.Expect("You say, 'after the backup'")
	out := plain(ada.Raw()[start:])
	if i, j := strings.Index(out, "Backup written:"), strings.Index(out, "You say, 'after"); i < 0 || j < i {
		t.Fatalf("the say came before the backup's answer:\n%q", out)
	}
}
