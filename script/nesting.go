package script

// A scan of a script's tokens for how deeply it nests, before the parser
// sees it. gopher-lua's parser keeps a stack entry and a syntax tree node
// for every level of nesting and has no limit of its own: 200,000 nested
// parentheses (400 KB of source) cost it over 100 MB. Lua 5.1 itself
// refuses more than 200 levels ("chunk has too many syntax levels"); this
// scan refuses the same, in one pass over the bytes that allocates
// nothing.
//
// A level is an open bracket ( [ {, an open block (function, do, if,
// repeat; closed by end or until), or one step of a chain the parser can
// only reduce at its end: the right-associative operators .. and ^, and
// the unary operators - not #. A chain ends where the expression does (at
// , ; = and the keywords) or where a binary operator of lower precedence
// takes over (comparisons, and, or).

// maxSyntaxLevels is the deepest nesting a script may have: Lua 5.1's
// LUAI_MAXCCALLS.
const maxSyntaxLevels = 200

// tooDeep reports whether src nests deeper than limit, and the script
// line (from 1) where it first does.
func tooDeep(src string, limit int) (line int, deep bool) {
	var (
		levels  = 0 // open brackets and blocks
		chain   = 0 // pending chain steps at the current bracket level
		saved   [maxSyntaxLevels + 1]int
		operand = false // the last token ends an operand: a - after it is binary
	)
	line = 1
	push := func() {
		if levels < len(saved) {
			saved[levels] = chain
		}
		levels++
		chain = 0
	}
	pop := func() {
		if levels > 0 {
			levels--
			if levels < len(saved) {
				chain = saved[levels]
			}
		}
	}
	for i := 0; i < len(src); {
		c := src[i]
		switch {
		case c == '\n':
			line++
			i++
			continue
		case c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v':
			i++
			continue
		case c == '-' && i+1 < len(src) && src[i+1] == '-':
			i = skipComment(src, i+2, &line)
			continue
		case isNameStart(c):
			j := i + 1
			for j < len(src) && (isNameStart(src[j]) || isDigit(src[j])) {
				j++
			}
			switch src[i:j] {
			case "function", "do", "if", "repeat":
				push()
				operand = false
			case "end", "until":
				pop()
				operand = src[i:j] == "end" // function ... end is an operand
			case "not":
				chain++
				operand = false
			case "nil", "true", "false":
				operand = true
			case "and", "or":
				chain = 0
				operand = false
			default:
				if isKeyword(src[i:j]) {
					chain = 0
					operand = false
				} else {
					operand = true
				}
			}
			i = j
		case isDigit(c) || c == '.' && i+1 < len(src) && isDigit(src[i+1]):
			i = skipNumber(src, i)
			operand = true
		case c == '"' || c == '\'':
			i = skipQuoted(src, i, &line)
			operand = true
		case c == '[' && i+1 < len(src) && (src[i+1] == '[' || src[i+1] == '='):
			if j, ok := skipLong(src, i, &line); ok {
				i = j
				operand = true
				continue
			}
			push()
			operand = false
			i++
		case c == '(' || c == '[' || c == '{':
			push()
			operand = false
			i++
		case c == ')' || c == ']' || c == '}':
			pop()
			operand = true
			i++
		case c == '.' && i+1 < len(src) && src[i+1] == '.':
			if i+2 < len(src) && src[i+2] == '.' { // ...
				operand = true
				i += 3
				continue
			}
			chain++
			operand = false
			i += 2
		case c == '^' || c == '#' || c == '-' && !operand:
			chain++
			operand = false
			i++
		case c == ',' || c == ';' || c == '<' || c == '>' ||
			c == '=' || c == '~' && i+1 < len(src) && src[i+1] == '=':
			chain = 0
			operand = false
			i++
		default: // + - * / % . : and anything the parser will refuse
			operand = false
			i++
		}
		if levels+chain > limit {
			return line, true
		}
	}
	return line, false
}

func isNameStart(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_'
}

// isKeyword reports whether s is a Lua 5.1 reserved word.
func isKeyword(s string) bool {
	switch s {
	case "and", "break", "do", "else", "elseif", "end", "false", "for", "function", "if", "in",
		"local", "nil", "not", "or", "repeat", "return", "then", "true", "until", "while":
		return true
	}
	return false
}

// skipNumber returns the index after the number at i, exponent sign
// included, so the - of 1e-5 is not taken for an operator.
func skipNumber(src string, i int) int {
	hex := i+1 < len(src) && src[i] == '0' && (src[i+1] == 'x' || src[i+1] == 'X')
	for i < len(src) {
		c := src[i]
		switch {
		case isDigit(c) || c == '.' || isNameStart(c):
			i++
			if !hex && (c == 'e' || c == 'E') && i < len(src) && (src[i] == '+' || src[i] == '-') {
				i++
			}
		default:
			return i
		}
	}
	return i
}

// skipQuoted returns the index after the quoted string at i.
func skipQuoted(src string, i int, line *int) int {
	q := src[i]
	for i++; i < len(src); i++ {
		switch src[i] {
		case '\\':
			if i+1 < len(src) && src[i+1] == '\n' {
				*line++
			}
			i++
		case '\n':
			*line++
			return i + 1 // unfinished: the parser will say so
		case q:
			return i + 1
		}
	}
	return i
}

// skipLong returns the index after the long bracket ([[...]], [==[...]==])
// at i, or false if there is none there.
func skipLong(src string, i int, line *int) (int, bool) {
	j := i + 1
	for j < len(src) && src[j] == '=' {
		j++
	}
	if j >= len(src) || src[j] != '[' {
		return i, false
	}
	level := j - i - 1
	for k := j + 1; k < len(src); k++ {
		switch src[k] {
		case '\n':
			*line++
		case ']':
			e := k + 1
			for e < len(src) && src[e] == '=' {
				e++
			}
			if e < len(src) && src[e] == ']' && e-k-1 == level {
				return e + 1, true
			}
		}
	}
	return len(src), true
}

// skipComment returns the index after the comment whose body starts at i
// (after the --).
func skipComment(src string, i int, line *int) int {
	if i < len(src) && src[i] == '[' {
		if j, ok := skipLong(src, i, line); ok {
			return j
		}
	}
	for i < len(src) && src[i] != '\n' {
		i++
	}
	return i
}
