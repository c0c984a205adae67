package zone

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"unicode/utf8"

	"zonemud/internal/alias"
	"zonemud/internal/markup"
)

// This file is what a typed line becomes before it runs: the commands it
// chains with `;` and the player's aliases (internal/alias holds the
// rules), and the alias and unalias commands.

const aliasUsage = `alias [name] | alias <name> <commands>
  Make one word stand for commands. alias gs get sword, and gs types get
  sword (gs bag: get sword bag). In what it stands for, ; ends a command,
  $1 to $9 are the words typed after the alias and $* all of them:
  alias kk stand;kill $1, then kk rat stands and attacks the rat.
  ; works on any line you type too (n;n;e); type \; for a ; that stays
  (say wait\; listen). alias alone lists yours, alias <name> shows one,
  unalias <name> forgets one. Up to 50 aliases, 5 deep, 20 commands a line;
  alias, unalias and quit always mean themselves.`

const unaliasUsage = "unalias <name>\n  Forget one of your aliases (alias lists them)."

// expander is c's aliases with the game's rule for which command keeps
// its line whole: alias, whose expansion has its own `;`.
func (z *Zone) expander(c *Char) alias.Expander {
	aliases := c.pl.comm.rec.Aliases
	return alias.Expander{Aliases: aliases, Whole: func(w string) bool {
		if _, mine := aliases[w]; mine {
			return false
		}
		cmd := lookupCommand(w, c.role())
		return cmd != nil && cmd.name == "alias"
	}}
}

// runLine runs one line the player typed: each command it chains and its
// aliases expand to, in order, or none of them with a line saying why.
// The first runs now, and the rest as soon as c is ready for them
// (runChain).
func (z *Zone) runLine(c *Char, line string) {
	if c.pl != nil && c.pl.draft != nil {
		z.composeLine(c, line) // a letter's line: no alias, no ; chain
		return
	}
	if c.pl == nil || utf8.RuneCountInString(line) > maxLineRunes {
		z.interpret(c, line)
		return
	}
	e := z.expander(c)
	if !e.Needed(line) {
		z.interpret(c, line)
		return
	}
	cmds, refusal := e.Expand(line)
	if refusal != "" {
		z.sendLine(c, refusal)
		return
	}
	if len(cmds) == 0 {
		return
	}
	c.pl.chain = append(slices.Clip(cmds[1:]), c.pl.chain...)
	z.interpret(c, cmds[0])
	z.runChain(c)
}

// runChain runs the waiting commands of a chain while c can take them:
// still here, not recovering from an ability, not waiting for an answer.
// Those left wait in c.pl.chain, which goes with c if a command took it
// into another zone; its pulse runs them there.
func (z *Zone) runChain(c *Char) {
	for z.holds(c) && c.pl != nil && len(c.pl.chain) > 0 && z.pulses.now >= c.lagUntil && c.pl.await == 0 {
		next := c.pl.chain[0]
		c.pl.chain = c.pl.chain[1:]
		z.interpret(c, next)
	}
	if z.holds(c) && c.pl != nil && len(c.pl.chain) > 0 {
		z.wake(c)
	}
}

// cmdAlias lists, shows or defines an alias.
func (z *Zone) cmdAlias(c *Char, args string) {
	name, body := firstWord(strings.TrimSpace(args))
	name = strings.ToLower(name)
	aliases := c.pl.comm.rec.Aliases
	switch {
	case name == "":
		z.listAliases(c)
		return
	case strings.TrimSpace(body) == "":
		if b, ok := aliases[name]; ok {
			z.sendLine(c, "Alias "+markup.Escape(name)+" stands for: "+markup.Escape(b))
		} else {
			z.sendLine(c, "You have no alias "+markup.Escape(alias.Clean(name))+". alias <name> <commands> makes one.")
		}
		return
	}
	body = strings.TrimSpace(alias.Clean(body))
	if r := z.expander(c).Check(name, body); r != "" {
		z.sendLine(c, r)
		return
	}
	if aliases == nil {
		aliases = map[string]string{}
		c.pl.comm.rec.Aliases = aliases
	}
	old, had := aliases[name]
	aliases[name] = body
	z.dirty(c)
	line := "Alias " + name + " now stands for: " + markup.Escape(body)
	if had && old != body {
		line += " (it stood for: " + markup.Escape(old) + ")"
	}
	z.sendLine(c, line)
}

// listAliases shows every alias c keeps, by name.
func (z *Zone) listAliases(c *Char) {
	aliases := c.pl.comm.rec.Aliases
	if len(aliases) == 0 {
		z.sendLine(c, "You have no aliases. alias <name> <commands> makes one; help alias tells how.")
		return
	}
	names := slices.Sorted(maps.Keys(aliases))
	w := 0
	for _, n := range names {
		w = max(w, utf8.RuneCountInString(n))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Your aliases (%d of %d):", len(names), alias.MaxAliases)
	for _, n := range names {
		fmt.Fprintf(&b, "\n  %s%s  %s", markup.Escape(n), strings.Repeat(" ", w-utf8.RuneCountInString(n)), markup.Escape(aliases[n]))
	}
	z.sendLine(c, b.String())
}

// cmdUnalias forgets an alias.
func (z *Zone) cmdUnalias(c *Char, args string) {
	name := strings.ToLower(strings.TrimSpace(args))
	if name == "" {
		z.sendLine(c, z.helpText(unaliasUsage))
		return
	}
	if _, ok := c.pl.comm.rec.Aliases[name]; !ok {
		z.sendLine(c, "You have no alias "+markup.Escape(alias.Clean(name))+".")
		return
	}
	delete(c.pl.comm.rec.Aliases, name)
	z.dirty(c)
	z.sendLine(c, "Alias "+name+" is forgotten.")
}
