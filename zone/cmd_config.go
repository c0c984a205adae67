package zone

import (
	"fmt"
	"strings"

	"zonemud/internal/markup"
	"zonemud/internal/prompt"
)

// Player settings: colour, screen reader, brief rooms, vitals in the
// prompt, SSH keys.

const colorUsage = `color [off | 16 | 256 | truecolor | auto]
  Show or set how much colour you get. auto uses what your client reported.`

// cmdColor shows or sets the colour level.
func (z *Zone) cmdColor(c *Char, args string) {
	s := c.pl.sess
	arg := strings.ToLower(strings.TrimSpace(args))
	switch arg {
	case "":
		inf := s.Client()
		how := "from your client"
		if c.pl.settings.Color != "" {
			how = "set by you"
		}
		z.sendLine(c, fmt.Sprintf("Colour: %s (%s; your client reported %s). Try: color {R}256{x}, color off, color auto.",
			inf.Color, how, inf.Reported))
		return
	case "auto", "default":
		c.pl.settings.Color = ""
		s.ResetColor()
		z.dirty(c)
		z.sendLine(c, "Colour now follows what your client reported.")
		return
	}
	lvl, ok := markup.Parse(arg)
	if !ok {
		z.sendLine(c, colorUsage)
		return
	}
	c.pl.settings.Color = lvl.String()
	s.SetColor(lvl)
	z.dirty(c)
	z.sendLine(c, "Colour set to "+lvl.String()+".")
}

// applySettings makes a session show what the player chose.
func (z *Zone) applySettings(c *Char) {
	s := c.pl.sess
	if s == nil {
		return
	}
	switch {
	case c.pl.settings.ScreenReader:
		s.SetColor(markup.None)
	case c.pl.settings.Color != "":
		if lvl, ok := markup.Parse(c.pl.settings.Color); ok {
			s.SetColor(lvl)
		}
	default:
		s.ResetColor()
	}
}

// screenReader reports whether c's output should suit a screen reader: no
// art, no colour, no meaning carried by colour or layout alone.
func (z *Zone) screenReader(c *Char) bool {
	if c.pl == nil {
		return false
	}
	if c.pl.settings.ScreenReader {
		return true
	}
	return c.pl.sess != nil && c.pl.sess.Client().ScreenReader
}

// cmdScreenReader switches screen-reader mode.
func (z *Zone) cmdScreenReader(c *Char, args string) {
	switch strings.ToLower(strings.TrimSpace(args)) {
	case "on", "":
		if strings.TrimSpace(args) == "" && c.pl.settings.ScreenReader {
			c.pl.settings.ScreenReader = false
		} else {
			c.pl.settings.ScreenReader = true
		}
	case "off":
		c.pl.settings.ScreenReader = false
	default:
		z.sendLine(c, "screenreader [on | off]")
		return
	}
	z.dirty(c)
	z.applySettings(c)
	if c.pl.settings.ScreenReader {
		z.sendLine(c, "Screen reader mode is on: no colour, plain lists, no decorations.")
	} else {
		z.sendLine(c, "Screen reader mode is off.")
	}
}

// cmdBrief toggles room descriptions on arrival.
func (z *Zone) cmdBrief(c *Char, args string) {
	c.pl.settings.Brief = !c.pl.settings.Brief
	z.dirty(c)
	if c.pl.settings.Brief {
		z.sendLine(c, "Brief mode on: a room you walk into shows its name, exits and who is there; look shows its description too.")
	} else {
		z.sendLine(c, "Brief mode off.")
	}
}

// cmdVitals toggles vitals in the prompt.
func (z *Zone) cmdVitals(c *Char, args string) {
	c.pl.settings.Vitals = !c.pl.settings.Vitals
	z.dirty(c)
	if c.pl.settings.Vitals {
		z.sendLine(c, "Your prompt shows your hit points, mana and moves.")
	} else {
		z.sendLine(c, "Your prompt is plain again.")
	}
}

const sshkeyUsage = `sshkey add <key> | sshkey list | sshkey remove <number>
  Register the public key from your id_ed25519.pub (or id_rsa.pub) file, and
  log in with ssh Name@host -p {ssh_port} without a password.`

// cmdSSHKey manages the account's SSH keys; the store work happens off the
// zone goroutine and the answer comes back as a notice.
func (z *Zone) cmdSSHKey(c *Char, args string) {
	op, rest := firstWord(args)
	op = strings.ToLower(op)
	switch op {
	case "add", "list", "remove":
	default:
		z.sendLine(c, z.helpText(sshkeyUsage))
		return
	}
	if op == "add" && len(rest) > 16<<10 {
		z.sendLine(c, "That is far too long to be a public key.")
		return
	}
	answer := z.later(c)
	z.shard.SSHKeys(c.name, op, rest, func(reply string) {
		lines := strings.Split(reply, "\n")
		for i, l := range lines {
			lines[i] = markup.Escape(l)
		}
		answer(strings.Join(lines, "\n"))
	})
}

// promptUsage is the prompt command's help; promptTokens fills in the list.
var promptUsage = `prompt [<format> | default]
  Choose what your prompt shows, with these tokens:
` + promptTokens() + `  Examples: prompt %h/%H hp %m mana %v mv %g gold %x tnl %r %e %c
            prompt <%hhp %mm %vmv>
  Colour codes work too (prompt {R}%h{x}hp). However it is set, the line
  ends with "> ". prompt alone shows yours; prompt default goes back to the
  plain one (vitals switches that between "> " and your hit points, mana
  and moves). Your prompt is kept with your character.`

func promptTokens() string {
	var b strings.Builder
	for _, t := range prompt.Tokens {
		fmt.Fprintf(&b, "    %%%c  %s\n", t.Letter, t.Shows)
	}
	return b.String()
}

// cmdPrompt shows, sets or resets the player's own prompt.
func (z *Zone) cmdPrompt(c *Char, args string) {
	format := strings.TrimSpace(args)
	switch strings.ToLower(format) {
	case "":
		if f := c.pl.settings.Prompt; f != "" {
			z.sendLine(c, "Your prompt is: "+markup.Escape(f)+"\nIt shows: "+string(prompt.Render(nil, f, promptSource{z, c})))
		} else {
			z.sendLine(c, "Your prompt is the default one. Set your own with prompt <format>, for example:\n  prompt %h/%H hp %m mana %v mv %g gold %x tnl %r %e %c\nhelp prompt lists the tokens.")
		}
		return
	case "default", "reset", "off":
		c.pl.settings.Prompt = ""
		z.dirty(c)
		z.sendLine(c, "Your prompt is the default one again.")
		return
	}
	if err := prompt.Check(format); err != nil {
		z.sendLine(c, "That cannot be your prompt: "+markup.Escape(err.Error())+".")
		return
	}
	c.pl.settings.Prompt = format
	z.dirty(c)
	z.sendLine(c, "Your prompt is set.")
}

// promptSource answers the prompt's tokens for c, each only when its
// prompt names it.
type promptSource struct {
	z *Zone
	c *Char
}

func (s promptSource) Value(l byte) string {
	c := s.c
	switch l {
	case 'h':
		return itoa(c.hp)
	case 'H':
		return itoa(c.maxHP)
	case 'm':
		return itoa(c.mana)
	case 'M':
		return itoa(c.maxM)
	case 'v':
		return itoa(c.mv)
	case 'V':
		return itoa(c.maxMv)
	case 'x':
		return itoa(max(0, s.z.expToLevel(c)-c.exp))
	case 'X':
		return itoa(c.exp)
	case 'g':
		return itoa(c.gold)
	case 'r':
		switch {
		case c.room == nil:
		case !s.z.lit(c):
			return "somewhere dark" // as look shows no name in the dark
		default:
			return c.room.proto.Name
		}
	case 'e':
		if c.room != nil {
			return s.z.exitsShort(c.room)
		}
	case 'c':
		if t := c.fighting; t != nil {
			return prompt.Condition(t.hp, t.maxHP)
		}
	}
	return ""
}
