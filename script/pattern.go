package script

// A Lua 5.1 pattern matcher that can be interrupted.
//
// gopher-lua's own matcher (package pm) runs to completion inside one Go
// call, and a backtracking pattern such as ".-.-.-.-b" on a long subject
// never returns; the VM only counts and checks between instructions.
// This matcher follows lstrlib.c of Lua 5.1 and differs in three ways: it
// counts steps and asks expired every patternCheckEvery steps, it bounds
// its recursion at maxMatchDepth ("pattern too complex"), and a pattern
// is read by length, so an embedded zero byte is an ordinary character.

const (
	maxCaptures       = 32
	maxMatchDepth     = 200
	patternCheckEvery = 1 << 10
	capUnfinished     = -1
	capPosition       = -2
	patternSpecials   = "^$*+?.([%-"
)

type capture struct {
	init, len int
}

// matchState is one search of pat in src. raise must not return (it
// raises a Lua error); expired charges the steps to the call and reports whether it must stop.
type matchState struct {
	src, pat string
	level    int
	capture  [maxCaptures]capture
	depth    int
	steps    int
	raise    func(msg string)
	expired  func() bool
}

func (m *matchState) fail(msg string) {
	m.raise(msg)
	panic("script: matchState.raise returned") // unreachable: raise panics
}

func (m *matchState) step() {
	m.steps++
	if m.steps&(patternCheckEvery-1) == 0 && m.expired != nil && m.expired() {
		m.fail("pattern matching stopped: over the call's budget")
	}
}

// reset prepares a search from a new start position.
func (m *matchState) reset() {
	m.level = 0
	m.depth = 0
}

func (m *matchState) at(p int) byte {
	if p < len(m.pat) {
		return m.pat[p]
	}
	return 0
}

func (m *matchState) classEnd(p int) int {
	if p >= len(m.pat) {
		m.fail("malformed pattern")
	}
	c := m.pat[p]
	p++
	switch c {
	case '%':
		if p >= len(m.pat) {
			m.fail("malformed pattern (ends with '%')")
		}
		return p + 1
	case '[':
		if m.at(p) == '^' {
			p++
		}
		for { // look for the closing ']'
			if p >= len(m.pat) {
				m.fail("malformed pattern (missing ']')")
			}
			c := m.pat[p]
			p++
			if c == '%' && p < len(m.pat) {
				p++ // skip escapes such as '%]'
			}
			if m.at(p) == ']' {
				break
			}
		}
		return p + 1
	default:
		return p
	}
}

func isLower(c byte) bool { return 'a' <= c && c <= 'z' }
func isUpper(c byte) bool { return 'A' <= c && c <= 'Z' }
func isDigit(c byte) bool { return '0' <= c && c <= '9' }
func isAlpha(c byte) bool { return isLower(c) || isUpper(c) }
func isAlnum(c byte) bool { return isAlpha(c) || isDigit(c) }

func isPunct(c byte) bool {
	return (33 <= c && c <= 47) || (58 <= c && c <= 64) || (91 <= c && c <= 96) || (123 <= c && c <= 126)
}

func isSpace(c byte) bool {
	return c == ' ' || ('\t' <= c && c <= '\r')
}

func isXDigit(c byte) bool {
	return isDigit(c) || ('a' <= c && c <= 'f') || ('A' <= c && c <= 'F')
}

func toLower(c byte) byte {
	if isUpper(c) {
		return c + 'a' - 'A'
	}
	return c
}

func matchClass(c, cl byte) bool {
	var res bool
	switch toLower(cl) {
	case 'a':
		res = isAlpha(c)
	case 'c':
		res = c < 32 || c == 127
	case 'd':
		res = isDigit(c)
	case 'l':
		res = isLower(c)
	case 'p':
		res = isPunct(c)
	case 's':
		res = isSpace(c)
	case 'u':
		res = isUpper(c)
	case 'w':
		res = isAlnum(c)
	case 'x':
		res = isXDigit(c)
	case 'z':
		res = c == 0
	default:
		return cl == c
	}
	if isLower(cl) {
		return res
	}
	return !res
}

// matchBracketClass matches c against the set that starts at p ('[') and
// ends at ec (']').
func (m *matchState) matchBracketClass(c byte, p, ec int) bool {
	sig := true
	if m.at(p+1) == '^' {
		sig = false
		p++
	}
	for p++; p < ec; p++ {
		switch {
		case m.pat[p] == '%':
			p++
			if matchClass(c, m.at(p)) {
				return sig
			}
		case m.at(p+1) == '-' && p+2 < ec:
			p += 2
			if m.pat[p-2] <= c && c <= m.pat[p] {
				return sig
			}
		case m.pat[p] == c:
			return sig
		}
	}
	return !sig
}

func (m *matchState) singleMatch(s, p, ep int) bool {
	if s >= len(m.src) {
		return false
	}
	c := m.src[s]
	switch m.pat[p] {
	case '.':
		return true
	case '%':
		return matchClass(c, m.at(p+1))
	case '[':
		return m.matchBracketClass(c, p, ep-1)
	default:
		return m.pat[p] == c
	}
}

// match returns the end of the match of pat[p:] at src[s:], or -1.
func (m *matchState) match(s, p int) int {
	m.depth++
	if m.depth > maxMatchDepth {
		m.fail("pattern too complex")
	}
	r := m.doMatch(s, p)
	m.depth--
	return r
}

func (m *matchState) doMatch(s, p int) int {
	for {
		m.step()
		if p >= len(m.pat) {
			return s
		}
		switch m.pat[p] {
		case '(':
			if m.at(p+1) == ')' {
				return m.startCapture(s, p+2, capPosition)
			}
			return m.startCapture(s, p+1, capUnfinished)
		case ')':
			return m.endCapture(s, p+1)
		case '%':
			switch d := m.at(p + 1); {
			case d == 'b':
				if s = m.matchBalance(s, p+2); s == -1 {
					return -1
				}
				p += 4
				continue
			case d == 'f':
				p += 2
				if m.at(p) != '[' {
					m.fail("missing '[' after '%f' in pattern")
				}
				ep := m.classEnd(p)
				var prev, cur byte
				if s > 0 {
					prev = m.src[s-1]
				}
				if s < len(m.src) {
					cur = m.src[s]
				}
				if m.matchBracketClass(prev, p, ep-1) || !m.matchBracketClass(cur, p, ep-1) {
					return -1
				}
				p = ep
				continue
			case isDigit(d):
				if s = m.matchCapture(s, d); s == -1 {
					return -1
				}
				p += 2
				continue
			}
		case '$':
			if p+1 == len(m.pat) {
				if s == len(m.src) {
					return s
				}
				return -1
			}
		}
		// A single character class, possibly followed by a quantifier.
		ep := m.classEnd(p)
		matched := m.singleMatch(s, p, ep)
		switch m.at(ep) {
		case '?':
			if matched {
				if r := m.match(s+1, ep+1); r != -1 {
					return r
				}
			}
			p = ep + 1
			continue
		case '*':
			return m.maxExpand(s, p, ep)
		case '+':
			if !matched {
				return -1
			}
			return m.maxExpand(s+1, p, ep)
		case '-':
			return m.minExpand(s, p, ep)
		}
		if !matched {
			return -1
		}
		s++
		p = ep
	}
}

func (m *matchState) maxExpand(s, p, ep int) int {
	i := 0
	for m.singleMatch(s+i, p, ep) {
		i++
		m.step()
	}
	for ; i >= 0; i-- {
		if r := m.match(s+i, ep+1); r != -1 {
			return r
		}
	}
	return -1
}

func (m *matchState) minExpand(s, p, ep int) int {
	for {
		if r := m.match(s, ep+1); r != -1 {
			return r
		}
		if !m.singleMatch(s, p, ep) {
			return -1
		}
		s++
	}
}

func (m *matchState) startCapture(s, p, what int) int {
	if m.level >= maxCaptures {
		m.fail("too many captures")
	}
	m.capture[m.level] = capture{init: s, len: what}
	m.level++
	r := m.match(s, p)
	if r == -1 {
		m.level--
	}
	return r
}

func (m *matchState) endCapture(s, p int) int {
	l := m.captureToClose()
	m.capture[l].len = s - m.capture[l].init
	r := m.match(s, p)
	if r == -1 {
		m.capture[l].len = capUnfinished
	}
	return r
}

func (m *matchState) captureToClose() int {
	for l := m.level - 1; l >= 0; l-- {
		if m.capture[l].len == capUnfinished {
			return l
		}
	}
	m.fail("invalid pattern capture")
	return 0
}

func (m *matchState) matchBalance(s, p int) int {
	if p+1 >= len(m.pat) {
		m.fail("unbalanced pattern")
	}
	if s >= len(m.src) || m.src[s] != m.pat[p] {
		return -1
	}
	b, e := m.pat[p], m.pat[p+1]
	cont := 1
	for s++; s < len(m.src); s++ {
		m.step()
		switch m.src[s] {
		case e:
			if cont--; cont == 0 {
				return s + 1
			}
		case b:
			cont++
		}
	}
	return -1
}

func (m *matchState) checkCapture(d byte) int {
	l := int(d) - '1'
	if l < 0 || l >= m.level || m.capture[l].len == capUnfinished {
		m.fail("invalid capture index")
	}
	return l
}

func (m *matchState) matchCapture(s int, d byte) int {
	l := m.checkCapture(d)
	c := m.capture[l]
	if c.len < 0 { // a position capture matches nothing
		return -1
	}
	if len(m.src)-s >= c.len && m.src[c.init:c.init+c.len] == m.src[s:s+c.len] {
		return s + c.len
	}
	return -1
}

// captureValue returns capture i of the match src[s:e]: a string, or for
// a position capture its 1-based position. With no captures, capture 0 is
// the whole match.
func (m *matchState) captureValue(i, s, e int) (str string, pos int, isPos bool) {
	if i >= m.level {
		if i != 0 {
			m.fail("invalid capture index")
		}
		return m.src[s:e], 0, false
	}
	c := m.capture[i]
	switch c.len {
	case capUnfinished:
		m.fail("unfinished capture")
	case capPosition:
		return "", c.init + 1, true
	}
	return m.src[c.init : c.init+c.len], 0, false
}
