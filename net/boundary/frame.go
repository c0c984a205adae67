package boundary

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"net/netip"
	"unicode/utf8"

	"zonemud/internal/markup"
)

// Version is the newest protocol version this build speaks; MinVersion the
// oldest. Version 2 adds the SSH front's frames (AuthAsk, AuthAnswer,
// Login) and the web front's Resume: a holder sends them only on a link
// that agreed on 2 or more. Version 3 adds Took: a game sends it only on
// a link that agreed on 3 or more. Version 4 adds Bans, which a game sends
// only on a link that agreed on 4 or more.
const (
	Version    = 4
	MinVersion = 1
)

// SSHVersion is the first version with AuthAsk, AuthAnswer, Login and
// Resume.
const SSHVersion = 2

// TookVersion is the first version with Took.
const TookVersion = 3

// TookEvery is how many of a session's events the game takes between two
// Tooks: each time its session's reader has taken that many more since
// the last, it says so. A holder that waits for Took must let more than
// TookEvery events be outstanding, or it would wait for a Took that never
// comes. It is part of the protocol: a change needs a new version.
const TookEvery = 16

// BansVersion is the first version with Bans.
const BansVersion = 4

// MaxFrame is the bound on a frame's body (kind and fields), in bytes. The
// game's output queue per session is smaller, and the holder's lines are
// capped far below it.
const MaxFrame = 1 << 20

// Bounds on the parts of a frame, checked when decoding.
const (
	maxString = 64 << 10 // a name, a reason, a terminal, a GMCP package
	maxList   = 256      // GMCP packages, ops in one Output
)

// ErrMalformed is a frame that does not decode: the link is to be dropped.
var ErrMalformed = errors.New("boundary: malformed frame")

// Kind says what a frame is; it is the frame's first byte.
type Kind uint8

// The kinds, holder to game then game to holder. Their values are the
// protocol: never renumber one, only add.
const (
	KindHello    Kind = 1
	KindWelcome  Kind = 2
	KindRefuse   Kind = 3
	KindAttach   Kind = 10
	KindInput    Kind = 11
	KindTooLong  Kind = 12
	KindClient   Kind = 13
	KindGMCPIn   Kind = 14
	KindMSSPAsk  Kind = 15
	KindCompress Kind = 16
	KindLinkLost Kind = 17
	KindSwap     Kind = 18
	KindSnapshot Kind = 19
	KindAuthAsk  Kind = 20
	KindLogin    Kind = 21
	KindResume   Kind = 22
	KindOutput   Kind = 30
	KindState    Kind = 31
	KindClose    Kind = 32
	KindDetached Kind = 33
	KindBye      Kind = 34
	KindSnapped  Kind = 35
	KindAuthAns  Kind = 36
	KindTook     Kind = 37
	KindBans     Kind = 38
)

// Frame is one message of the protocol.
type Frame interface {
	Kind() Kind
	put(e *enc)
	get(d *dec)
}

// Hello opens the link, holder to game.
type Hello struct {
	Min, Max uint32 // the protocol versions the holder speaks
	Build    string // the holder's build, for the admin
}

// Welcome accepts the link, game to holder.
type Welcome struct {
	Version uint32 // the version both speak from now on
	Build   string // the game's build
}

// Refuse turns a link down, game to holder; the game closes it after.
type Refuse struct{ Reason string }

// Client is what the holder knows of a session's client: its window, what
// it says it is, and what the transport agreed.
type Client struct {
	Width, Height uint32
	Name          string // "mudlet", "tintin++", "ssh", "telnet", "web"
	Terminal      string
	Color         markup.Level // on the wire one byte: 0 none, 1 16, 2 256, 3 true colour
	ScreenReader  bool
	UTF8          bool
	MCCP          bool // output is compressed now
	GMCP          bool // the transport agreed to GMCP
}

// Attach hands a session to the game. Account is "" for a connection not
// logged in yet: the game runs the login. Otherwise the session is logged
// into Account, and Authenticated says the holder proved it (a password the
// game checked before a swap, or an SSH key or password the holder
// checked): the game puts it in its character with no question.
type Attach struct {
	Session       uint64
	Front         string // "telnet", "tls", "ssh", "web"
	Remote        string // the client's address, host:port
	Addr          string // the address the per-address limits count it under
	Account       string
	Authenticated bool
	Client        Client
	GMCP          []string     // the GMCP packages the client asked for, lower case
	Color         markup.Level // the colour override, when ColorSet
	ColorSet      bool         // false: the client's own level (on the wire, Color -1)
	Seq           uint64       // the last input sequence number the game applied
}

// Input is a line the player typed, numbered by the holder from 1 on per
// session; a game applies each number once.
type Input struct {
	Session uint64
	Seq     uint64
	Line    string
}

// TooLong says the player sent a line over the holder's cap, discarded.
type TooLong struct {
	Session uint64
	Limit   uint32
}

// ClientChanged is the client's new state (a resize, a TTYPE answer).
type ClientChanged struct {
	Session uint64
	Client  Client
}

// GMCPIn is a GMCP message from the client.
type GMCPIn struct {
	Session uint64
	Package string
	Data    []byte
}

// MSSPAsk says a listing crawler asked for MSSP.
type MSSPAsk struct{ Session uint64 }

// Compress says the client agreed to MCCP (On) or turned it off.
type Compress struct {
	Session uint64
	On      bool
}

// LinkLost says the player's connection dropped: the character goes
// link-dead.
type LinkLost struct{ Session uint64 }

// Swap asks the game to let go of every session for a restart: apply what
// has arrived, save, and answer Detached for each and then Bye.
type Swap struct{ Reason string }

// Snapshot asks the game, before a reboot, to save every character and
// write a consistent copy of its database to Path: the next binary's
// pre-flight opens the copy (migrating it as it would the file), since the
// game holds the file itself. The game answers Snapped.
type Snapshot struct{ Path string }

// AuthMethod says what an AuthAsk checks.
type AuthMethod uint8

// The methods of AuthAsk.
const (
	AuthExists   AuthMethod = 1 // does User name an account? (Secret empty)
	AuthPassword AuthMethod = 2 // Secret is the password typed
	AuthKey      AuthMethod = 3 // Secret is a public key in SSH wire form, which the holder checked the client holds (or offers)
)

// AuthAsk asks the game to check an SSH client's credential against its
// accounts, for the holder's SSH front: the holder does the SSH crypto
// (it owns the host key and verifies a key's signature), the game, which
// alone opens the store, says whether the password or the key opens the
// account. The game answers AuthAnswer with the same Ask, in any order.
type AuthAsk struct {
	Ask    uint64 // the holder's number for the question
	Method AuthMethod
	User   string // the SSH user name: the character name
	Remote string // the client's address, host:port (the game's shut-outs and login limits count it)
	Secret []byte
}

// Verdict is an AuthAnswer's.
type Verdict uint8

// The verdicts.
const (
	Denied    Verdict = 1 // the credential does not open the account, or the address may not try
	Opens     Verdict = 2 // it opens Account
	NoAccount Verdict = 3 // no account has the name: the session asks the creation questions
)

// AuthAnswer answers an AuthAsk. With Opens or NoAccount it carries a
// Grant, a random number the game keeps for a while: a Login must bring it
// back, so a session is only ever started by the game that checked it.
type AuthAnswer struct {
	Ask     uint64
	Verdict Verdict
	Account string // Opens: the account's name as it is spelled
	Grant   uint64 // Opens and NoAccount: non-zero
	Why     string // Denied: why, for the holder's log and banner ("" for a wrong credential)
}

// Login hands the game a new SSH session whose client the holder let in
// on this game's AuthAnswer: the game checks Grant is one it gave for
// User (each is used once), then runs the session as its own SSH front's:
// the banner, and straight into the account's character (a Grant of
// Opens) or the creation questions (NoAccount). A Grant it did not give
// is refused with a line and a Close.
type Login struct {
	Session uint64
	Front   string
	Remote  string
	User    string
	Grant   uint64
	Client  Client
}

// Resume says a web page asked to resume a session with a token the game
// gave it (Client.Resume), before it typed anything; Name is the name it
// gave, if any. The game answers as its own web front does: into the
// character without the password, or a line saying why not.
type Resume struct {
	Session uint64
	Token   string
	Name    string
}

// OpKind says what one output op is.
type OpKind uint8

// The op kinds.
const (
	OpText       OpKind = 1 // rendered text, "\n" line ends
	OpPrompt     OpKind = 2 // a prompt: marked for the client (EOR/GA)
	OpRaw        OpKind = 3 // protocol bytes for the client as they are
	OpGMCP       OpKind = 4 // Pkg and Data (JSON), framed by the holder's transport
	OpEchoOff    OpKind = 5 // hide what the player types (a password follows)
	OpEchoOn     OpKind = 6
	OpCompress   OpKind = 7 // start MCCP here
	OpDecompress OpKind = 8 // stop it here
)

// Op is one piece of a burst of output.
type Op struct {
	Kind OpKind
	Pkg  string // OpGMCP only
	Data []byte
}

// Output is one burst of a session's output, written and flushed in one go.
type Output struct {
	Session uint64
	Ops     []Op
}

// State is what the game wants handed back at the next Attach.
type State struct {
	Session  uint64
	Account  string       // "" until the login is done
	Color    markup.Level // the colour override, when ColorSet
	ColorSet bool         // as in Attach
	GMCP     []string
}

// Close tells the holder to close the player's connection once the output
// before it is written. Why is "quit", "takeover", "kick", "idle" or the
// like, for the holder's counts.
type Close struct {
	Session uint64
	Why     string
}

// Detached says the game let go of a session, having applied its input up
// to Seq; the holder keeps the connection.
type Detached struct {
	Session uint64
	Seq     uint64
}

// Bye says the game goes away; nothing after it on the link counts.
type Bye struct{ Reason string }

// Snapped answers a Snapshot: Err is "" once the copy is written, else why
// it is not.
type Snapped struct{ Err string }

// Took says the session's reader in the game has taken N of the events
// the holder sent it since its Attach (or Login): Input, TooLong, Client,
// GMCPIn, MSSPAsk, Resume and Compress, each counted once whether the
// session used it or dropped it. The game sends one each time N has grown
// by TookEvery. So the holder knows how many wait in the game, and reads
// a client no faster than its session takes what it typed, as a game
// reads a connection of its own (version 3).
type Took struct {
	Session uint64
	N       uint64
}

// MaxBans bounds the bans in one Bans frame: a longer list goes in several.
const MaxBans = 1024

// AddressBan is one ban of a block of addresses.
type AddressBan struct {
	Block   string // the block, as netip.Prefix writes it, masked: "203.0.113.7/32", "2001:db8::/32"
	Expires int64  // when it ends, in Unix seconds; 0: never
	Line    string // what a client from the block is told: the game's own words
}

// Bans is the game's list of address bans, for the holder to refuse a
// banned address before any handshake as a gate does, on every front, and
// while no game is linked. The game sends the whole list after the
// handshake and again after every ban and unban, at most MaxBans to a
// frame: every frame of a list but its last has More set, and the holder
// replaces its list with the whole one at the last.
type Bans struct {
	More bool
	List []AddressBan
}

func (Hello) Kind() Kind         { return KindHello }
func (Welcome) Kind() Kind       { return KindWelcome }
func (Refuse) Kind() Kind        { return KindRefuse }
func (Attach) Kind() Kind        { return KindAttach }
func (Input) Kind() Kind         { return KindInput }
func (TooLong) Kind() Kind       { return KindTooLong }
func (ClientChanged) Kind() Kind { return KindClient }
func (GMCPIn) Kind() Kind        { return KindGMCPIn }
func (MSSPAsk) Kind() Kind       { return KindMSSPAsk }
func (Compress) Kind() Kind      { return KindCompress }
func (LinkLost) Kind() Kind      { return KindLinkLost }
func (Swap) Kind() Kind          { return KindSwap }
func (Output) Kind() Kind        { return KindOutput }
func (State) Kind() Kind         { return KindState }
func (Close) Kind() Kind         { return KindClose }
func (Detached) Kind() Kind      { return KindDetached }
func (Bye) Kind() Kind           { return KindBye }
func (Snapshot) Kind() Kind      { return KindSnapshot }
func (Snapped) Kind() Kind       { return KindSnapped }
func (AuthAsk) Kind() Kind       { return KindAuthAsk }
func (AuthAnswer) Kind() Kind    { return KindAuthAns }
func (Login) Kind() Kind         { return KindLogin }
func (Resume) Kind() Kind        { return KindResume }
func (Took) Kind() Kind          { return KindTook }
func (Bans) Kind() Kind          { return KindBans }

// newFrame is an empty frame of kind k, or nil for an unknown kind.
func newFrame(k Kind) Frame {
	switch k {
	case KindHello:
		return &Hello{}
	case KindWelcome:
		return &Welcome{}
	case KindRefuse:
		return &Refuse{}
	case KindAttach:
		return &Attach{}
	case KindInput:
		return &Input{}
	case KindTooLong:
		return &TooLong{}
	case KindClient:
		return &ClientChanged{}
	case KindGMCPIn:
		return &GMCPIn{}
	case KindMSSPAsk:
		return &MSSPAsk{}
	case KindCompress:
		return &Compress{}
	case KindLinkLost:
		return &LinkLost{}
	case KindSwap:
		return &Swap{}
	case KindOutput:
		return &Output{}
	case KindState:
		return &State{}
	case KindClose:
		return &Close{}
	case KindDetached:
		return &Detached{}
	case KindBye:
		return &Bye{}
	case KindSnapshot:
		return &Snapshot{}
	case KindSnapped:
		return &Snapped{}
	case KindAuthAsk:
		return &AuthAsk{}
	case KindAuthAns:
		return &AuthAnswer{}
	case KindLogin:
		return &Login{}
	case KindResume:
		return &Resume{}
	case KindTook:
		return &Took{}
	case KindBans:
		return &Bans{}
	}
	return nil
}

func (f *Hello) put(e *enc)         { e.u32(f.Min); e.u32(f.Max); e.str(f.Build) }
func (f *Hello) get(d *dec)         { f.Min = d.u32(); f.Max = d.u32(); f.Build = d.str() }
func (f *Welcome) put(e *enc)       { e.u32(f.Version); e.str(f.Build) }
func (f *Welcome) get(d *dec)       { f.Version = d.u32(); f.Build = d.str() }
func (f *Refuse) put(e *enc)        { e.str(f.Reason) }
func (f *Refuse) get(d *dec)        { f.Reason = d.str() }
func (f *Input) put(e *enc)         { e.uv(f.Session); e.uv(f.Seq); e.str(f.Line) }
func (f *Input) get(d *dec)         { f.Session = d.uv(); f.Seq = d.uv(); f.Line = d.line() }
func (f *TooLong) put(e *enc)       { e.uv(f.Session); e.u32(f.Limit) }
func (f *TooLong) get(d *dec)       { f.Session = d.uv(); f.Limit = d.u32() }
func (f *ClientChanged) put(e *enc) { e.uv(f.Session); f.Client.put(e) }
func (f *ClientChanged) get(d *dec) { f.Session = d.uv(); f.Client.get(d) }
func (f *GMCPIn) put(e *enc)        { e.uv(f.Session); e.str(f.Package); e.bytes(f.Data) }
func (f *GMCPIn) get(d *dec)        { f.Session = d.uv(); f.Package = d.str(); f.Data = d.bytes() }
func (f *MSSPAsk) put(e *enc)       { e.uv(f.Session) }
func (f *MSSPAsk) get(d *dec)       { f.Session = d.uv() }
func (f *Compress) put(e *enc)      { e.uv(f.Session); e.bool(f.On) }
func (f *Compress) get(d *dec)      { f.Session = d.uv(); f.On = d.bool() }
func (f *LinkLost) put(e *enc)      { e.uv(f.Session) }
func (f *LinkLost) get(d *dec)      { f.Session = d.uv() }
func (f *Swap) put(e *enc)          { e.str(f.Reason) }
func (f *Swap) get(d *dec)          { f.Reason = d.str() }
func (f *Close) put(e *enc)         { e.uv(f.Session); e.str(f.Why) }
func (f *Close) get(d *dec)         { f.Session = d.uv(); f.Why = d.str() }
func (f *Detached) put(e *enc)      { e.uv(f.Session); e.uv(f.Seq) }
func (f *Detached) get(d *dec)      { f.Session = d.uv(); f.Seq = d.uv() }
func (f *Bye) put(e *enc)           { e.str(f.Reason) }
func (f *Bye) get(d *dec)           { f.Reason = d.str() }
func (f *Snapshot) put(e *enc)      { e.str(f.Path) }
func (f *Snapshot) get(d *dec)      { f.Path = d.str() }
func (f *Snapped) put(e *enc)       { e.str(f.Err) }
func (f *Snapped) get(d *dec)       { f.Err = d.str() }
func (f *Resume) put(e *enc)        { e.uv(f.Session); e.str(f.Token); e.str(f.Name) }
func (f *Resume) get(d *dec)        { f.Session = d.uv(); f.Token = d.str(); f.Name = d.str() }
func (f *Took) put(e *enc)          { e.uv(f.Session); e.uv(f.N) }
func (f *Took) get(d *dec)          { f.Session = d.uv(); f.N = d.uv() }

// maxSecret bounds an AuthAsk's secret: a password, or a public key in
// wire form (an RSA key of 16384 bits is about 2 KiB).
const maxSecret = 16 << 10

func (f *AuthAsk) put(e *enc) {
	e.uv(f.Ask)
	e.b = append(e.b, byte(f.Method))
	e.str(f.User)
	e.str(f.Remote)
	e.bytes(f.Secret)
}

func (f *AuthAsk) get(d *dec) {
	f.Ask = d.uv()
	if f.Method = AuthMethod(d.byte()); d.err == nil && (f.Method < AuthExists || f.Method > AuthKey) {
		d.fail("auth method %d", f.Method)
	}
	f.User, f.Remote = d.str(), d.str()
	if p := d.raw(maxSecret); len(p) > 0 {
		f.Secret = append([]byte(nil), p...)
	}
}

func (f *AuthAnswer) put(e *enc) {
	e.uv(f.Ask)
	e.b = append(e.b, byte(f.Verdict))
	e.str(f.Account)
	e.uv(f.Grant)
	e.str(f.Why)
}

func (f *AuthAnswer) get(d *dec) {
	f.Ask = d.uv()
	if f.Verdict = Verdict(d.byte()); d.err == nil && (f.Verdict < Denied || f.Verdict > NoAccount) {
		d.fail("verdict %d", f.Verdict)
	}
	f.Account, f.Grant, f.Why = d.str(), d.uv(), d.str()
}

func (f *Login) put(e *enc) {
	e.uv(f.Session)
	e.str(f.Front)
	e.str(f.Remote)
	e.str(f.User)
	e.uv(f.Grant)
	f.Client.put(e)
}

func (f *Login) get(d *dec) {
	f.Session = d.uv()
	f.Front, f.Remote, f.User = d.str(), d.str(), d.str()
	f.Grant = d.uv()
	f.Client.get(d)
}

func (f *Bans) put(e *enc) {
	e.bool(f.More)
	e.uv(uint64(len(f.List)))
	for _, b := range f.List {
		e.str(b.Block)
		e.uv(uint64(b.Expires))
		e.str(b.Line)
	}
}

func (f *Bans) get(d *dec) {
	f.More = d.bool()
	n := d.uv()
	if n > MaxBans {
		d.fail("%d bans in a frame", n)
		return
	}
	for i := uint64(0); i < n && d.err == nil; i++ {
		b := AddressBan{Block: d.str()}
		if p, err := netip.ParsePrefix(b.Block); d.err == nil && (err != nil || p != p.Masked() || p.String() != b.Block) {
			d.fail("ban block %q", b.Block)
		}
		if ex := d.uv(); ex > math.MaxInt64 {
			d.fail("ban expiry %d", ex)
		} else {
			b.Expires = int64(ex)
		}
		b.Line = d.str()
		f.List = append(f.List, b)
	}
}

func (c *Client) put(e *enc) {
	e.u32(c.Width)
	e.u32(c.Height)
	e.str(c.Name)
	e.str(c.Terminal)
	e.b = append(e.b, byte(c.Color))
	e.bool(c.ScreenReader)
	e.bool(c.UTF8)
	e.bool(c.MCCP)
	e.bool(c.GMCP)
}

func (c *Client) get(d *dec) {
	c.Width, c.Height = d.u32(), d.u32()
	c.Name, c.Terminal = d.str(), d.str()
	if c.Color = markup.Level(d.byte()); !c.Color.Valid() {
		d.fail("colour level %d", c.Color)
	}
	c.ScreenReader, c.UTF8, c.MCCP, c.GMCP = d.bool(), d.bool(), d.bool(), d.bool()
}

func (f *Attach) put(e *enc) {
	e.uv(f.Session)
	e.str(f.Front)
	e.str(f.Remote)
	e.str(f.Addr)
	e.str(f.Account)
	e.bool(f.Authenticated)
	f.Client.put(e)
	e.strs(f.GMCP)
	e.color(f.Color, f.ColorSet)
	e.uv(f.Seq)
}

func (f *Attach) get(d *dec) {
	f.Session = d.uv()
	f.Front, f.Remote, f.Addr, f.Account = d.str(), d.str(), d.str(), d.str()
	f.Authenticated = d.bool()
	f.Client.get(d)
	f.GMCP = d.strs()
	f.Color, f.ColorSet = d.color()
	f.Seq = d.uv()
}

func (f *State) put(e *enc) {
	e.uv(f.Session)
	e.str(f.Account)
	e.color(f.Color, f.ColorSet)
	e.strs(f.GMCP)
}

func (f *State) get(d *dec) {
	f.Session = d.uv()
	f.Account = d.str()
	f.Color, f.ColorSet = d.color()
	f.GMCP = d.strs()
}

func (f *Output) put(e *enc) {
	e.uv(f.Session)
	e.uv(uint64(len(f.Ops)))
	for _, op := range f.Ops {
		e.b = append(e.b, byte(op.Kind))
		if op.Kind == OpGMCP {
			e.str(op.Pkg)
		}
		e.bytes(op.Data)
	}
}

func (f *Output) get(d *dec) {
	f.Session = d.uv()
	n := d.count()
	if n > 0 {
		f.Ops = make([]Op, 0, n)
	}
	for i := 0; i < n && d.err == nil; i++ {
		op := Op{Kind: OpKind(d.byte())}
		if op.Kind < OpText || op.Kind > OpDecompress {
			d.fail("op kind %d", op.Kind)
			return
		}
		if op.Kind == OpGMCP {
			op.Pkg = d.str()
		}
		op.Data = d.bytes()
		f.Ops = append(f.Ops, op)
	}
}

// enc appends fields to a frame body.
type enc struct{ b []byte }

func (e *enc) uv(v uint64)  { e.b = binary.AppendUvarint(e.b, v) }
func (e *enc) u32(v uint32) { e.uv(uint64(v)) }
func (e *enc) iv(v int64)   { e.b = binary.AppendVarint(e.b, v) }
func (e *enc) bool(v bool) {
	var b byte
	if v {
		b = 1
	}
	e.b = append(e.b, b)
}
func (e *enc) str(s string)   { e.uv(uint64(len(s))); e.b = append(e.b, s...) }
func (e *enc) bytes(p []byte) { e.uv(uint64(len(p))); e.b = append(e.b, p...) }
func (e *enc) strs(l []string) {
	e.uv(uint64(len(l)))
	for _, s := range l {
		e.str(s)
	}
}

// dec reads fields from a frame body; the first error sticks, and every
// read after it returns the zero value.
type dec struct {
	b   []byte
	err error
}

func (d *dec) fail(format string, args ...any) {
	if d.err == nil {
		d.err = fmt.Errorf("%w: %s", ErrMalformed, fmt.Sprintf(format, args...))
	}
}

func (d *dec) uv() uint64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.b)
	if n <= 0 || (n > 1 && d.b[n-1] == 0) {
		d.fail("bad uvarint") // or an overlong one: one spelling per value
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *dec) iv() int64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Varint(d.b)
	if n <= 0 || (n > 1 && d.b[n-1] == 0) {
		d.fail("bad varint")
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *dec) u32() uint32 {
	v := d.uv()
	if v > math.MaxUint32 {
		d.fail("%d does not fit 32 bits", v)
		return 0
	}
	return uint32(v)
}

// color is a colour override: -1, or a level 0 to 3.
// color writes a colour override as one signed varint: the level, or -1
// for none.
func (e *enc) color(l markup.Level, set bool) {
	if !set {
		e.iv(-1)
		return
	}
	e.iv(int64(l))
}

// color reads what enc.color wrote.
func (d *dec) color() (markup.Level, bool) {
	v := d.iv()
	if v == -1 {
		return markup.None, false
	}
	if v < 0 || v > int64(markup.TrueColor) {
		d.fail("colour override %d", v)
		return markup.None, false
	}
	return markup.Level(v), true
}

func (d *dec) byte() byte {
	if d.err != nil {
		return 0
	}
	if len(d.b) == 0 {
		d.fail("short")
		return 0
	}
	b := d.b[0]
	d.b = d.b[1:]
	return b
}

func (d *dec) bool() bool {
	switch b := d.byte(); b {
	case 0:
		return false
	case 1:
		return true
	default:
		d.fail("bool %d", b)
		return false
	}
}

// raw reads a length and that many bytes, at most limit.
func (d *dec) raw(limit int) []byte {
	n := d.uv()
	if d.err != nil {
		return nil
	}
	if n > uint64(limit) || n > uint64(len(d.b)) {
		d.fail("length %d", n)
		return nil
	}
	p := d.b[:n:n]
	d.b = d.b[n:]
	return p
}

func (d *dec) str() string  { return string(d.raw(maxString)) }
func (d *dec) line() string { return string(d.raw(MaxFrame)) }
func (d *dec) bytes() []byte {
	p := d.raw(MaxFrame)
	if len(p) == 0 {
		return nil
	}
	return append([]byte(nil), p...)
}

func (d *dec) count() int {
	n := d.uv()
	if n > maxList {
		d.fail("list of %d", n)
		return 0
	}
	return int(n)
}

func (d *dec) strs() []string {
	n := d.count()
	if n == 0 {
		return nil
	}
	l := make([]string, 0, n)
	for i := 0; i < n && d.err == nil; i++ {
		s := d.str()
		if !utf8.ValidString(s) {
			d.fail("package name not UTF-8")
		}
		l = append(l, s)
	}
	return l
}
