package page_test

import (
	"bufio"
	"crypto/sha1"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
)

// stubWS is the server side of one WebSocket (RFC 6455), just enough to
// speak gmcp.mudstandards.org to the page from a test without the game:
// whole messages, ping answered, close read as the end.
type stubWS struct {
	conn net.Conn
	br   *bufio.Reader
	wmu  sync.Mutex
}

// stubFrame is one message from the page.
type stubFrame struct {
	binary bool
	data   string
}

// stubServer answers WebSocket upgrades at /ws with the subprotocol the
// page asks for, handing each connection to conns.
func stubServer(t *testing.T, conns chan<- *stubWS) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.EqualFold(r.Header.Get("Upgrade"), "websocket") {
			http.Error(w, "not a WebSocket upgrade", http.StatusBadRequest)
			return
		}
		if !strings.Contains(r.Header.Get("Sec-WebSocket-Protocol"), "gmcp.mudstandards.org") {
			t.Errorf("the page asked for subprotocols %q", r.Header.Get("Sec-WebSocket-Protocol"))
		}
		h := sha1.Sum([]byte(r.Header.Get("Sec-WebSocket-Key") + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"))
		conn, rw, err := http.NewResponseController(w).Hijack()
		if err != nil {
			t.Errorf("hijack: %v", err)
			return
		}
		_, _ = rw.WriteString("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n" +
			"Sec-WebSocket-Accept: " + base64.StdEncoding.EncodeToString(h[:]) + "\r\n" +
			"Sec-WebSocket-Protocol: gmcp.mudstandards.org\r\n\r\n")
		if err := rw.Flush(); err != nil {
			conn.Close()
			return
		}
		conns <- &stubWS{conn: conn, br: rw.Reader}
	})
}

func (c *stubWS) writeFrame(op byte, p []byte) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	hdr := []byte{0x80 | op}
	switch n := len(p); {
	case n < 126:
		hdr = append(hdr, byte(n))
	case n < 1<<16:
		hdr = append(hdr, 126, byte(n>>8), byte(n))
	default:
		hdr = append(hdr, 127)
		hdr = binary.BigEndian.AppendUint64(hdr, uint64(n))
	}
	_, err := c.conn.Write(append(hdr, p...))
	return err
}

// Text sends a text message (GMCP); Binary sends game text.
func (c *stubWS) Text(s string) error   { return c.writeFrame(1, []byte(s)) }
func (c *stubWS) Binary(s string) error { return c.writeFrame(2, []byte(s)) }

// CloseNormal ends the connection with close code 1000, as the server does
// after quit; Drop cuts it, as a lost link does.
func (c *stubWS) CloseNormal() {
	_ = c.writeFrame(8, []byte{0x03, 0xe8})
	c.conn.Close()
}
func (c *stubWS) Drop() { c.conn.Close() }

var errStubClosed = errors.New("stub: the page closed the connection")

// Read returns the page's next message.
func (c *stubWS) Read() (stubFrame, error) {
	var msg []byte
	var op byte
	for {
		var h [2]byte
		if _, err := io.ReadFull(c.br, h[:]); err != nil {
			return stubFrame{}, err
		}
		fin, code := h[0]&0x80 != 0, h[0]&0x0f
		n := uint64(h[1] & 0x7f)
		switch n {
		case 126:
			var b [2]byte
			if _, err := io.ReadFull(c.br, b[:]); err != nil {
				return stubFrame{}, err
			}
			n = uint64(binary.BigEndian.Uint16(b[:]))
		case 127:
			var b [8]byte
			if _, err := io.ReadFull(c.br, b[:]); err != nil {
				return stubFrame{}, err
			}
			n = binary.BigEndian.Uint64(b[:])
		}
		if n > 1<<20 {
			return stubFrame{}, errors.New("stub: a frame over 1 MiB")
		}
		var mask [4]byte
		if h[1]&0x80 == 0 {
			return stubFrame{}, errors.New("stub: the page sent an unmasked frame")
		}
		if _, err := io.ReadFull(c.br, mask[:]); err != nil {
			return stubFrame{}, err
		}
		p := make([]byte, n)
		if _, err := io.ReadFull(c.br, p); err != nil {
			return stubFrame{}, err
		}
		for i := range p {
			p[i] ^= mask[i%4]
		}
		switch code {
		case 8:
			return stubFrame{}, errStubClosed
		case 9:
			_ = c.writeFrame(10, p)
			continue
		case 10:
			continue
		case 0:
		default:
			op = code
		}
		msg = append(msg, p...)
		if fin {
			return stubFrame{binary: op == 2, data: string(msg)}, nil
		}
	}
}
