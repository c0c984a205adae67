// ANSI text to styled runs: the game's output as the page renders it.
//
// AnsiParser turns text with SGR escape sequences (16, 256 and truecolour
// colours, bold, dim, italic, underline, inverse, strike, reset) into
// tokens: {t: "text", text, s: style} and {t: "nl"} for each line end.
// Any other escape sequence (cursor moves, OSC titles) and control
// characters are dropped. Its state lasts across calls, so a sequence
// split between two WebSocket frames still reads.

const MAX_PARAMS = 64; // a CSI sequence longer than this is dropped as noise
const MAX_OSC = 512;

const plain = Object.freeze({ fg: null, bg: null, bold: false, dim: false, italic: false, underline: false, inverse: false, strike: false });

export class AnsiParser {
  constructor() {
    this.style = plain;
    this.state = 0; // 0 text, 1 after ESC, 2 in CSI, 3 in OSC, 4 ESC in OSC
    this.params = "";
    this.osc = 0;
  }

  // reset forgets any half-read sequence and the current style (a new
  // connection starts plain).
  reset() {
    this.style = plain;
    this.state = 0;
    this.params = "";
  }

  // feed parses str and returns its tokens.
  feed(str) {
    const out = [];
    let run = "";
    const flush = () => {
      if (run !== "") {
        out.push({ t: "text", text: run, s: this.style });
        run = "";
      }
    };
    for (const ch of str) {
      const c = ch.codePointAt(0);
      switch (this.state) {
        case 0:
          if (c === 0x1b) {
            this.state = 1;
          } else if (c === 0x0a) {
            flush();
            out.push({ t: "nl" });
          } else if (c === 0x09) {
            run += "\t";
          } else if (c < 0x20 || c === 0x7f || (c >= 0x80 && c < 0xa0)) {
            // carriage returns, bells and other controls are not text
          } else {
            run += ch;
          }
          break;
        case 1:
          if (ch === "[") {
            this.state = 2;
            this.params = "";
          } else if (ch === "]") {
            this.state = 3;
            this.osc = 0;
          } else {
            this.state = 0; // a two-character sequence: nothing to show
          }
          break;
        case 2:
          if (c >= 0x40 && c <= 0x7e) {
            this.state = 0;
            if (ch === "m" && !/[<=>?]/.test(this.params)) {
              flush();
              this.style = applySGR(this.style, this.params);
            }
          } else if (c >= 0x20 && c <= 0x3f && this.params.length < MAX_PARAMS) {
            this.params += ch;
          } else {
            this.state = 0; // not a CSI sequence after all, or far too long
          }
          break;
        case 3:
          if (c === 0x07 || ++this.osc > MAX_OSC) {
            this.state = 0;
          } else if (c === 0x1b) {
            this.state = 4;
          }
          break;
        case 4:
          this.state = ch === "\\" ? 0 : 3;
          break;
      }
    }
    flush();
    return out;
  }
}

function clampByte(n) {
  n = Number.parseInt(n, 10);
  if (!Number.isFinite(n) || n < 0) return 0;
  return n > 255 ? 255 : n;
}

// extended reads a 38/48 colour from its arguments: ["5", n] or
// ["2", r, g, b] (a colon form may carry an empty colour-space id first,
// "2::r:g:b"). It returns the colour and how many arguments it used.
function extended(args, colon) {
  if (args[0] === "5" && args.length >= 2) {
    return [{ i: clampByte(args[1]) }, 2];
  }
  if (args[0] === "2") {
    let rest = args.slice(1);
    if (colon && rest.length >= 4) rest = rest.slice(1);
    if (rest.length >= 3) {
      return [{ rgb: [clampByte(rest[0]), clampByte(rest[1]), clampByte(rest[2])] }, colon ? args.length : 4];
    }
  }
  return [null, args.length];
}

// applySGR returns the style after the SGR parameters params ("1;31").
export function applySGR(style, params) {
  const s = { ...style };
  const parts = params === "" ? ["0"] : params.split(";");
  for (let i = 0; i < parts.length; i++) {
    const sub = parts[i].split(":");
    const code = sub[0] === "" ? 0 : Number.parseInt(sub[0], 10);
    if (code === 38 || code === 48) {
      let color, used;
      if (sub.length > 1) {
        [color] = extended(sub.slice(1), true);
      } else {
        [color, used] = extended(parts.slice(i + 1), false);
        i += used;
      }
      if (color) {
        if (code === 38) s.fg = color;
        else s.bg = color;
      }
      continue;
    }
    if (code === 0) Object.assign(s, plain);
    else if (code === 1) s.bold = true;
    else if (code === 2) s.dim = true;
    else if (code === 3) s.italic = true;
    else if (code === 4) s.underline = sub[1] !== "0";
    else if (code === 7) s.inverse = true;
    else if (code === 9) s.strike = true;
    else if (code === 21) s.underline = true;
    else if (code === 22) { s.bold = false; s.dim = false; }
    else if (code === 23) s.italic = false;
    else if (code === 24) s.underline = false;
    else if (code === 27) s.inverse = false;
    else if (code === 29) s.strike = false;
    else if (code >= 30 && code <= 37) s.fg = { i: code - 30 };
    else if (code === 39) s.fg = null;
    else if (code >= 40 && code <= 47) s.bg = { i: code - 40 };
    else if (code === 49) s.bg = null;
    else if (code >= 90 && code <= 97) s.fg = { i: code - 90 + 8 };
    else if (code >= 100 && code <= 107) s.bg = { i: code - 100 + 8 };
  }
  return Object.freeze(s);
}

const cube = [0, 95, 135, 175, 215, 255];

// rgbOf is the colour of xterm palette entry n (16 to 255) as [r, g, b].
export function rgbOf(n) {
  if (n >= 232) {
    const v = 8 + 10 * (n - 232);
    return [v, v, v];
  }
  n -= 16;
  return [cube[Math.floor(n / 36)], cube[Math.floor(n / 6) % 6], cube[n % 6]];
}

// cssColor is a colour as CSS: a class name for the 16 colours the
// theme chooses ("c3"), or an rgb() value for the rest.
export function cssColor(c) {
  if (c.rgb) return { value: `rgb(${c.rgb[0]}, ${c.rgb[1]}, ${c.rgb[2]})` };
  if (c.i < 16) return { cls: "c" + c.i };
  const [r, g, b] = rgbOf(c.i);
  return { value: `rgb(${r}, ${g}, ${b})` };
}

// isPlain reports whether style s draws text as the default does.
export function isPlain(s) {
  return !s.fg && !s.bg && !s.bold && !s.dim && !s.italic && !s.underline && !s.inverse && !s.strike;
}

const linkPattern = /\bhttps?:\/\/[^\s<>"'`]+/gi;

// findLinks returns the web addresses in text as {start, end, url}, with
// punctuation that closes a sentence left out, and only http and https.
export function findLinks(text) {
  const found = [];
  for (const m of text.matchAll(linkPattern)) {
    let s = m[0];
    while (s.length > 0) {
      const last = s[s.length - 1];
      // a closing bracket the address opened is part of it (a wiki link)
      if (last === ")" && s.split("(").length >= s.split(")").length) break;
      if (!/[.,;:!?)\]}'"]/.test(last)) break;
      s = s.slice(0, -1);
    }
    let url;
    try {
      url = new URL(s);
    } catch {
      continue;
    }
    if (url.protocol !== "http:" && url.protocol !== "https:") continue;
    found.push({ start: m.index, end: m.index + s.length, url: url.href });
  }
  return found;
}
