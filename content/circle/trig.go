package circle

import (
	"fmt"
	"regexp"
	"strings"
)

// A trigger that is nothing but a greeting or an echo converts to Lua;
// every other trigger is listed for a builder to rewrite. Faithful means:
// it always fires (numeric argument 100 where that is a chance), and
// every command is a line of speech, an emote or a message to the actor,
// whose text uses no variable but the actor's name.

// dgLine is one command a simple trigger may hold.
var dgLine = regexp.MustCompile(`^(say|emote|%send%\s+%actor%|wsend\s+%actor%|msend\s+%actor%|osend\s+%actor%)\s+(.+)$`)

// luaStep is one converted command.
type luaStep struct{ verb, text string }

// simpleSteps reads a trigger's commands as steps, or reports false.
func simpleSteps(cmds string) ([]luaStep, bool) {
	var out []luaStep
	for _, l := range strings.Split(cmds, "\n") {
		l = strings.TrimSpace(l)
		if l == "" || strings.HasPrefix(l, "*") {
			continue
		}
		m := dgLine.FindStringSubmatch(l)
		if m == nil {
			return nil, false
		}
		verb := m[1]
		if strings.Contains(verb, "send") {
			verb = "send"
		}
		rest := strings.ReplaceAll(m[2], "%actor.name%", "\x00")
		if strings.Contains(rest, "%") {
			return nil, false
		}
		out = append(out, luaStep{verb, rest})
	}
	return out, len(out) > 0
}

// luaString is s as a Lua string expression, the actor's name (written
// \x00 by simpleSteps) joined in.
func luaString(s string) string {
	plain, _ := text(s)
	plain = strings.ReplaceAll(stripMarkup(plain), "\n", " ")
	parts := strings.Split(plain, "\x00")
	var q []string
	for i, p := range parts {
		if p != "" {
			var b strings.Builder
			b.WriteByte('"')
			for j := 0; j < len(p); j++ {
				switch c := p[j]; {
				case c == '"' || c == '\\':
					b.WriteByte('\\')
					b.WriteByte(c)
				case c < 0x20 || c == 0x7f:
					fmt.Fprintf(&b, "\\%03d", c)
				default:
					b.WriteByte(c)
				}
			}
			b.WriteByte('"')
			q = append(q, b.String())
		}
		if i < len(parts)-1 {
			q = append(q, "actor:name()")
		}
	}
	if len(q) == 0 {
		return `""`
	}
	return strings.Join(q, " .. ")
}

// trigScript converts the simple triggers of a room ("room") or a mob
// ("mob") into one script, and returns it with the vnums it converted.
func (c *conv) trigScript(kind string, vnums []int) (string, map[int]bool) {
	done := map[int]bool{}
	var fns []string
	have := map[string]bool{}
	for _, v := range vnums {
		t := c.w.Triggers[v]
		if t == nil {
			continue
		}
		steps, ok := simpleSteps(t.Commands)
		if !ok {
			continue
		}
		var fn, guard string
		switch {
		case kind == "mob" && t.Attach == 0 && (t.Types == "g" || t.Types == "h") && t.NArg == 100:
			fn = "on_greet(actor)"
		case kind == "room" && t.Attach == 2 && t.Types == "g" && t.NArg == 100:
			fn = "on_enter(actor)"
			guard = "actor:is_player()"
		case t.Types == "d" && ((kind == "mob" && t.Attach == 0) || (kind == "room" && t.Attach == 2)):
			fn = "on_speech(actor, text)"
			arg := strings.ToLower(strings.TrimSpace(t.Arg))
			if arg == "" || strings.ContainsAny(arg, "%\"\\") {
				continue
			}
			if arg != "*" {
				if t.NArg == 0 { // 0: the argument is a phrase the speech holds; else any of its words
					guard = fmt.Sprintf("string.find(string.lower(text), %s, 1, true)", luaString(arg))
				} else {
					var any []string
					for _, w := range strings.Fields(arg) {
						any = append(any, fmt.Sprintf("string.find(string.lower(text), %s, 1, true)", luaString(w)))
					}
					guard = strings.Join(any, " or ")
				}
			}
		default:
			continue
		}
		if have[fn] {
			continue // one function of a name: the first trigger converts, the others are listed
		}
		var body []string
		for _, s := range steps {
			switch {
			case s.verb == "send":
				body = append(body, fmt.Sprintf("actor:send(%s)", luaString(s.text)))
			case kind == "mob":
				body = append(body, fmt.Sprintf("self:%s(%s)", s.verb, luaString(s.text)))
			default:
				body = nil // a room neither says nor emotes
			}
			if body == nil {
				break
			}
		}
		if body == nil {
			continue
		}
		have[fn] = true
		done[v] = true
		var b strings.Builder
		fmt.Fprintf(&b, "-- trigger %d %q, converted from DG Script\nfunction %s\n", v, oneLine(stripMarkup(mustText(t.Name))), fn)
		indent := "  "
		if guard != "" {
			fmt.Fprintf(&b, "  if %s then\n", guard)
			indent = "    "
		}
		for _, l := range body {
			b.WriteString(indent + l + "\n")
		}
		if guard != "" {
			b.WriteString("  end\n")
		}
		b.WriteString("end")
		fns = append(fns, b.String())
	}
	return strings.Join(fns, "\n\n"), done
}
