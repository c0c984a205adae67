// The zonemud web client: one WebSocket to /ws on the page's own host,
// subprotocol gmcp.mudstandards.org (game text as UTF-8 ANSI in binary
// frames both ways, GMCP as "Package.Name json" in text frames both ways).
//
// Game text only ever reaches the page as text nodes (textContent,
// createTextNode): never as markup, so nothing the game or another
// player sends can add elements, scripts or styles to the page.

import { AnsiParser, cssColor, isPlain, findLinks } from "./ansi.js";
import { splitCommands } from "./line.js";

const SUBPROTOCOL = "gmcp.mudstandards.org";
const MAX_LINES = 2000; // scrollback, in lines
const MAX_CHANNEL_LINES = 500;
const MAX_HISTORY = 200;
const TOKEN_KEY = "zonemud.resume"; // sessionStorage: this tab only, never the URL
const FONT_KEY = "zonemud.fontSize";
const SR_KEY = "zonemud.screenreader";

const $ = (id) => document.getElementById(id);
const out = $("output");
const input = $("input");
const statusEl = $("status");
const reconnectBtn = $("reconnect");
const encoder = new TextEncoder();

// Storage may be switched off (private windows, policies): the page then
// works without it, forgetting what it would have kept.
function storageGet(area, key) {
  try {
    return window[area].getItem(key);
  } catch {
    return null;
  }
}
function storageSet(area, key, value) {
  try {
    if (value === null) window[area].removeItem(key);
    else window[area].setItem(key, value);
  } catch {
    // nothing to keep it in
  }
}

const page = {
  ws: null,
  state: "connecting",
  parser: new AnsiParser(),
  decoder: null,
  line: null, // the line element text is added to; null after a line end
  pending: "", // the text of the line not yet ended (a prompt)
  echoOff: false, // the server asked for hidden input (Client.Echo)
  inGame: false,
  srSent: false,
  sr: storageGet("localStorage", SR_KEY) === "on",
  history: [],
  histPos: 0,
  draft: "",
  unread: 0,
};

// ---- output

function atBottom() {
  return out.scrollHeight - out.scrollTop - out.clientHeight < 8;
}

function newLine(cls) {
  const el = document.createElement("div");
  el.className = cls ? "line " + cls : "line";
  out.append(el);
  while (out.childElementCount > MAX_LINES) out.firstElementChild.remove();
  return el;
}

// styled wraps a run of text in a span carrying its style, or returns
// the line itself for plain text (and always in screen-reader mode,
// which drops colour).
function styled(parent, s) {
  if (page.sr || isPlain(s)) return parent;
  const span = document.createElement("span");
  let fg = s.fg;
  let bg = s.bg;
  const cls = [];
  if (s.inverse) {
    [fg, bg] = [bg, fg];
    if (!fg) cls.push("f-inv");
    if (!bg) cls.push("b-inv");
  }
  if (fg) {
    const c = cssColor(fg);
    if (c.cls) cls.push("f-" + c.cls);
    else span.style.color = c.value;
  }
  if (bg) {
    const c = cssColor(bg);
    if (c.cls) cls.push("b-" + c.cls);
    else span.style.backgroundColor = c.value;
  }
  if (s.bold) cls.push("bold");
  if (s.dim) cls.push("dim");
  if (s.italic) cls.push("italic");
  if (s.underline) cls.push("under");
  if (s.strike) cls.push("strike");
  span.className = cls.join(" ");
  parent.append(span);
  return span;
}

// appendText adds text to parent as text nodes, web addresses as links
// that open in a new tab without telling the site where they came from.
function appendText(parent, text) {
  let pos = 0;
  for (const l of findLinks(text)) {
    if (l.start > pos) parent.append(document.createTextNode(text.slice(pos, l.start)));
    const a = document.createElement("a");
    a.href = l.url;
    a.target = "_blank";
    a.rel = "noopener noreferrer nofollow";
    a.textContent = text.slice(l.start, l.end);
    parent.append(a);
    pos = l.end;
  }
  if (pos < text.length) parent.append(document.createTextNode(text.slice(pos)));
}

function render(tokens) {
  if (tokens.length === 0) return;
  const stick = atBottom();
  for (const tok of tokens) {
    if (tok.t === "nl") {
      if (!page.line) newLine();
      page.line = null;
      page.pending = "";
      continue;
    }
    if (!page.line) page.line = newLine();
    page.pending += tok.text;
    appendText(styled(page.line, tok.s), tok.text);
  }
  if (stick) out.scrollTop = out.scrollHeight;
}

// system writes a line of the page's own (not the game's) to the log.
function system(text) {
  const stick = atBottom();
  const el = newLine("sys");
  el.textContent = text;
  page.line = null;
  page.pending = "";
  if (stick) out.scrollTop = out.scrollHeight;
}

// echo shows what the player sent after the prompt it answers, as a
// terminal would.
function echo(text) {
  const stick = atBottom();
  if (!page.line) page.line = newLine();
  const span = document.createElement("span");
  span.className = "echo";
  span.textContent = text;
  page.line.append(span);
  page.line = null;
  page.pending = "";
  if (stick) out.scrollTop = out.scrollHeight;
}

// ---- connection

const statusText = {
  connecting: "Connecting…",
  connected: "Connected",
  lost: "Link lost",
  closed: "Disconnected",
};

function setState(state) {
  page.state = state;
  statusEl.dataset.state = state;
  statusEl.textContent = statusText[state];
  reconnectBtn.hidden = state !== "lost" && state !== "closed";
  document.body.dataset.state = state;
}

function connect() {
  if (page.ws) {
    const old = page.ws;
    page.ws = null;
    old.close();
  }
  setState("connecting");
  page.parser.reset();
  page.decoder = new TextDecoder("utf-8");
  page.echoOff = false;
  page.inGame = false;
  page.srSent = false;
  page.line = null;
  page.pending = "";
  updateMask();
  const url = (location.protocol === "https:" ? "wss://" : "ws://") + location.host + "/ws";
  let ws;
  try {
    ws = new WebSocket(url, SUBPROTOCOL);
  } catch (e) {
    system("Cannot open a connection: " + e.message);
    setState("lost");
    return;
  }
  ws.binaryType = "arraybuffer";
  page.ws = ws;
  ws.onopen = () => {
    if (ws !== page.ws) return;
    if (ws.protocol !== SUBPROTOCOL) {
      system("The server does not speak " + SUBPROTOCOL + ".");
      ws.close();
      return;
    }
    setState("connected");
    const token = storageGet("sessionStorage", TOKEN_KEY);
    // What the page is and wants first, so that a resumed character's
    // room and vitals, sent as it goes back in, reach the panels.
    gmcp("Core.Hello", { client: "zonemud-web", version: "1", screenreader: page.sr });
    gmcp("Core.Supports.Set", ["Char 1", "Room 1", "Comm 1"]);
    if (token) gmcp("Client.Resume", { token }); // before anything typed
    lastSize = "";
    sendSize();
  };
  ws.onmessage = (ev) => {
    if (ws !== page.ws) return;
    if (typeof ev.data === "string") {
      onGMCP(ev.data);
    } else {
      render(page.parser.feed(page.decoder.decode(new Uint8Array(ev.data), { stream: true })));
    }
    updateMask();
  };
  ws.onclose = (ev) => {
    if (ws !== page.ws) return;
    page.ws = null;
    render(page.parser.feed(page.decoder.decode()));
    page.echoOff = false;
    updateMask();
    if (ev.code === 1000 && page.state === "connected") {
      // The server ended the session (quit, or taken over elsewhere):
      // there is no character waiting to resume.
      storageSet("sessionStorage", TOKEN_KEY, null);
      system("Disconnected. Press Reconnect to log in again.");
      setState("closed");
    } else {
      system("The link is lost. Press Reconnect to return to your character.");
      setState("lost");
    }
  };
}

function connected() {
  return page.ws && page.ws.readyState === WebSocket.OPEN && page.state === "connected";
}

function sendLine(text) {
  if (!connected()) {
    system("Not connected: press Reconnect.");
    return false;
  }
  page.ws.send(encoder.encode(text + "\n"));
  return true;
}

// sendSize tells the server how many characters fit across and down the
// output (as telnet's NAWS does), so it wraps text to the window.
let lastSize = "";
function sendSize() {
  const probe = document.createElement("span");
  probe.textContent = "0".repeat(40);
  probe.style.visibility = "hidden";
  probe.style.position = "absolute";
  out.append(probe);
  const rect = probe.getBoundingClientRect();
  probe.remove();
  if (rect.width === 0) return;
  const cs = getComputedStyle(out);
  const w = out.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight);
  const h = out.clientHeight - parseFloat(cs.paddingTop) - parseFloat(cs.paddingBottom);
  const size = {
    width: Math.max(20, Math.min(250, Math.floor(w / (rect.width / 40)))),
    height: Math.max(5, Math.min(200, Math.floor(h / rect.height))),
  };
  const key = size.width + "x" + size.height;
  if (key === lastSize) return;
  lastSize = key;
  gmcp("Client.Size", size);
}

function gmcp(pkg, data) {
  if (page.ws && page.ws.readyState === WebSocket.OPEN) page.ws.send(pkg + " " + JSON.stringify(data));
}

// ---- GMCP

function onGMCP(frame) {
  const sp = frame.indexOf(" ");
  const pkg = (sp < 0 ? frame : frame.slice(0, sp)).toLowerCase();
  let data = null;
  if (sp >= 0) {
    try {
      data = JSON.parse(frame.slice(sp + 1));
    } catch {
      return; // a frame that does not read is ignored
    }
  }
  switch (pkg) {
    case "char.vitals":
      enterGame();
      vitals(data);
      break;
    case "char.name":
      enterGame();
      break;
    case "room.info":
      enterGame();
      room(data);
      break;
    case "comm.channel.text":
      channel(data);
      break;
    case "client.resume":
      if (data && typeof data.token === "string" && data.token !== "" && data.token.length <= 1024) {
        storageSet("sessionStorage", TOKEN_KEY, data.token);
        enterGame();
      } else {
        storageSet("sessionStorage", TOKEN_KEY, null);
      }
      break;
    case "client.echo":
      page.echoOff = !(data && data.on);
      break;
  }
}

// enterGame notes that login is over: the page's screen-reader mode
// becomes the game's setting too.
function enterGame() {
  if (page.inGame) return;
  page.inGame = true;
  page.echoOff = false;
  if (page.sr && !page.srSent) {
    page.srSent = true;
    sendLine("screenreader on");
  }
}

function num(v) {
  return typeof v === "number" && Number.isFinite(v) ? v : null;
}

function vitals(d) {
  if (!d || typeof d !== "object") return;
  setVital("hp", num(d.hp), num(d.maxhp));
  setVital("mana", num(d.mana), num(d.maxmana));
  setVital("moves", num(d.moves), num(d.maxmoves));
}

function setVital(name, cur, max) {
  if (cur === null || max === null) return;
  const el = document.querySelector(`.vital[data-vital="${name}"]`);
  const bar = el.querySelector(".bar");
  const pct = max > 0 ? Math.max(0, Math.min(100, (cur / max) * 100)) : 0;
  bar.setAttribute("aria-valuemax", String(max));
  bar.setAttribute("aria-valuenow", String(Math.max(0, Math.min(cur, max))));
  bar.setAttribute("aria-valuetext", `${cur} of ${max}`);
  bar.querySelector(".fill").style.width = pct.toFixed(1) + "%";
  el.querySelector(".vtext").textContent = `${cur}/${max}`;
  el.dataset.cur = String(cur);
  el.dataset.max = String(max);
  el.classList.toggle("low", pct < 30);
}

// ---- room and map

const DIRS = {
  n: { dx: 0, dy: -1, dz: 0, name: "north" },
  ne: { dx: 1, dy: -1, dz: 0, name: "northeast" },
  e: { dx: 1, dy: 0, dz: 0, name: "east" },
  se: { dx: 1, dy: 1, dz: 0, name: "southeast" },
  s: { dx: 0, dy: 1, dz: 0, name: "south" },
  sw: { dx: -1, dy: 1, dz: 0, name: "southwest" },
  w: { dx: -1, dy: 0, dz: 0, name: "west" },
  nw: { dx: -1, dy: -1, dz: 0, name: "northwest" },
  u: { dx: 0, dy: 0, dz: 1, name: "up" },
  d: { dx: 0, dy: 0, dz: -1, name: "down" },
};
const DIR_ORDER = Object.keys(DIRS);

// The map places rooms as the player walks: a room reached through an
// exit is one step that way from the room before. A room reached any
// other way (login, recall, a portal) starts a new map around it.
const map = { rooms: new Map(), here: null };

function cleanExits(exits) {
  const clean = {};
  if (exits && typeof exits === "object") {
    for (const [d, to] of Object.entries(exits)) {
      if (Object.hasOwn(DIRS, d) && Number.isInteger(to)) clean[d] = to;
    }
  }
  return clean;
}

function arrive(info) {
  const n = info.num;
  if (!Number.isInteger(n)) return;
  let r = map.rooms.get(n);
  if (!r) {
    const prev = map.here === null ? null : map.rooms.get(map.here);
    let at = null;
    if (prev) {
      for (const [d, to] of Object.entries(prev.exits)) {
        if (to === n) {
          at = { x: prev.x + DIRS[d].dx, y: prev.y + DIRS[d].dy, z: prev.z + DIRS[d].dz };
          break;
        }
      }
    }
    if (!at || map.rooms.size > 2000) {
      map.rooms.clear();
      at = { x: 0, y: 0, z: 0 };
    }
    r = at;
    map.rooms.set(n, r);
  }
  r.name = typeof info.name === "string" ? info.name : "";
  r.exits = cleanExits(info.exits);
  map.here = n;
}

const SVG = "http://www.w3.org/2000/svg";
const CELL = 24;

function svg(name, attrs) {
  const el = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  return el;
}

function drawMap() {
  const el = $("map");
  el.replaceChildren();
  const here = map.rooms.get(map.here);
  if (!here) return;
  const span = 4; // cells either side of the player
  const near = [];
  for (const [n, r] of map.rooms) {
    if (r.z === here.z && Math.abs(r.x - here.x) <= span && Math.abs(r.y - here.y) <= span) near.push([n, r]);
  }
  const at = (r) => [(r.x - here.x) * CELL, (r.y - here.y) * CELL];
  const links = svg("g", { class: "links" });
  const cells = svg("g", { class: "rooms" });
  for (const [n, r] of near) {
    const [x, y] = at(r);
    for (const [d, to] of Object.entries(r.exits)) {
      const dir = DIRS[d];
      if (dir.dz !== 0) continue;
      const other = map.rooms.get(to);
      const joined = other && other.z === r.z && other.x === r.x + dir.dx && other.y === r.y + dir.dy;
      if (joined && to < n && near.some(([m]) => m === to)) continue; // drawn from the other end
      const len = joined ? 1 : 0.45;
      links.append(svg("line", { x1: x, y1: y, x2: x + dir.dx * CELL * len, y2: y + dir.dy * CELL * len, class: joined ? "link" : "stub" }));
    }
    const box = svg("rect", { x: x - 7, y: y - 7, width: 14, height: 14, rx: 2, class: n === map.here ? "room here" : "room" });
    const title = svg("title", {});
    title.textContent = r.name;
    box.append(title);
    cells.append(box);
    if (r.exits.u !== undefined) cells.append(svg("path", { d: `M${x + 3} ${y - 2} l3 -4 l3 4 z`, class: "updown" }));
    if (r.exits.d !== undefined) cells.append(svg("path", { d: `M${x + 3} ${y + 2} l3 4 l3 -4 z`, class: "updown" }));
  }
  el.append(links, cells);
}

function room(info) {
  if (!info || typeof info !== "object") return;
  arrive(info);
  $("room-name").textContent = typeof info.name === "string" && info.name !== "" ? info.name : "Somewhere";
  $("room-area").textContent = typeof info.area === "string" ? info.area : "";
  const exits = cleanExits(info.exits);
  const box = $("room-exits");
  box.replaceChildren();
  const dirs = DIR_ORDER.filter((d) => d in exits);
  if (dirs.length === 0) {
    const none = document.createElement("span");
    none.textContent = "No way out.";
    box.append(none);
  }
  for (const d of dirs) {
    const b = document.createElement("button");
    b.type = "button";
    b.className = "exit";
    b.textContent = DIRS[d].name;
    b.dataset.dir = d;
    b.addEventListener("click", () => {
      echo(DIRS[d].name);
      sendLine(DIRS[d].name);
      input.focus();
    });
    box.append(b);
  }
  drawMap();
}

// ---- channels

function channel(d) {
  if (!d || typeof d !== "object") return;
  const li = document.createElement("li");
  const chan = document.createElement("span");
  chan.className = "chan";
  chan.textContent = String(d.channel ?? "");
  const who = document.createElement("span");
  who.className = "talker";
  who.textContent = String(d.talker ?? "");
  const text = document.createElement("span");
  text.className = "text";
  text.textContent = String(d.text ?? "");
  li.append(chan, " ", who, ": ", text);
  const list = $("channels");
  list.append(li);
  while (list.childElementCount > MAX_CHANNEL_LINES) list.firstElementChild.remove();
  const panel = $("panel-channels");
  if (panel.hidden) {
    page.unread++;
    const badge = $("unread");
    badge.textContent = String(page.unread);
    badge.hidden = false;
  } else {
    panel.scrollTop = panel.scrollHeight;
  }
}

function selectTab(tab) {
  for (const t of document.querySelectorAll('[role="tab"]')) {
    const on = t === tab;
    t.setAttribute("aria-selected", String(on));
    t.tabIndex = on ? 0 : -1;
    $(t.getAttribute("aria-controls")).hidden = !on;
  }
  if (tab.id === "tab-channels") {
    page.unread = 0;
    $("unread").hidden = true;
    const panel = $("panel-channels");
    panel.scrollTop = panel.scrollHeight;
  }
}

// ---- input

// masked reports whether the line being typed is a secret: the server
// turned echo off, or (for a server that does not say) the question
// before login asks for a password.
function masked() {
  return page.echoOff || (!page.inGame && /password/i.test(page.pending));
}

function updateMask() {
  const m = masked();
  const type = m ? "password" : "text";
  if (input.type !== type) input.type = type;
  $("input-label").textContent = m ? "Password" : "Command";
  document.body.classList.toggle("secret", m);
}

function submit() {
  const text = input.value;
  if (!connected()) {
    if (text === "" && (page.state === "lost" || page.state === "closed")) {
      connect();
    } else {
      system("Not connected: press Reconnect.");
    }
    return;
  }
  input.value = "";
  if (masked()) {
    // A secret: sent as typed, never split, shown, or kept in history.
    sendLine(text);
    page.pending = "";
    updateMask();
    return;
  }
  if (text.trim() !== "" && page.history[page.history.length - 1] !== text) {
    page.history.push(text);
    if (page.history.length > MAX_HISTORY) page.history.shift();
  }
  page.histPos = page.history.length;
  page.draft = "";
  for (const cmd of splitCommands(text)) {
    echo(cmd);
    sendLine(cmd);
  }
}

function onKey(e) {
  if (e.key === "ArrowUp" || e.key === "ArrowDown") {
    if (masked()) return;
    e.preventDefault();
    if (e.key === "ArrowUp" && page.histPos > 0) {
      if (page.histPos === page.history.length) page.draft = input.value;
      page.histPos--;
      input.value = page.history[page.histPos];
    } else if (e.key === "ArrowDown" && page.histPos < page.history.length) {
      page.histPos++;
      input.value = page.histPos === page.history.length ? page.draft : page.history[page.histPos];
    }
    input.setSelectionRange(input.value.length, input.value.length);
  } else if (e.key === "PageUp" || e.key === "PageDown") {
    e.preventDefault();
    out.scrollBy(0, (e.key === "PageUp" ? -0.9 : 0.9) * out.clientHeight);
  } else if (e.key === "Escape") {
    input.value = "";
    page.histPos = page.history.length;
  }
}

// ---- display settings

function setFont(px) {
  px = Math.max(10, Math.min(32, px));
  document.documentElement.style.setProperty("--font-size", px + "px");
  storageSet("localStorage", FONT_KEY, String(px));
  return px;
}

function setScreenReader(on, tell) {
  page.sr = on;
  document.body.classList.toggle("sr", on);
  $("screenreader").checked = on;
  $("panel-map").setAttribute("aria-hidden", String(on));
  storageSet("localStorage", SR_KEY, on ? "on" : "off");
  if (on && $("tab-map").getAttribute("aria-selected") === "true") selectTab($("tab-channels"));
  if (tell && page.inGame) {
    page.srSent = on;
    echo("screenreader " + (on ? "on" : "off"));
    sendLine("screenreader " + (on ? "on" : "off"));
  }
}

function init() {
  let font = Number.parseInt(storageGet("localStorage", FONT_KEY) ?? "", 10);
  font = setFont(Number.isFinite(font) ? font : 16);
  $("font-down").addEventListener("click", () => (font = setFont(font - 2)));
  $("font-up").addEventListener("click", () => (font = setFont(font + 2)));
  setScreenReader(page.sr, false);
  $("screenreader").addEventListener("change", (e) => setScreenReader(e.target.checked, true));
  const panels = $("panels");
  $("panels-toggle").addEventListener("click", (e) => {
    panels.hidden = !panels.hidden;
    e.currentTarget.setAttribute("aria-expanded", String(!panels.hidden));
  });
  for (const tab of document.querySelectorAll('[role="tab"]')) {
    tab.addEventListener("click", () => selectTab(tab));
    tab.addEventListener("keydown", (e) => {
      if (e.key !== "ArrowLeft" && e.key !== "ArrowRight") return;
      const tabs = [...document.querySelectorAll('[role="tab"]')];
      const next = tabs[(tabs.indexOf(tab) + (e.key === "ArrowRight" ? 1 : tabs.length - 1)) % tabs.length];
      selectTab(next);
      next.focus();
    });
  }
  $("inputbar").addEventListener("submit", (e) => {
    e.preventDefault();
    submit();
    input.focus();
  });
  input.addEventListener("keydown", onKey);
  reconnectBtn.addEventListener("click", () => {
    connect();
    input.focus();
  });
  let resizing = 0;
  new ResizeObserver(() => {
    clearTimeout(resizing);
    resizing = setTimeout(() => connected() && sendSize(), 250);
  }).observe(out);
  connect();
  input.focus();
}

init();
