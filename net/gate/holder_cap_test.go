package gate

import (
	"bytes"
	"log/slog"
	"net"
	"strings"
	"testing"

	"zonemud/net/boundary"
	"zonemud/net/telnet"
)

// The holder cuts a client whose output waiting passes the gate's
// output_limit_kib, not a limit of its own, and logs it (2413) with what
// waited. The client is one end of a pipe that nobody reads, so the
// holder's writer blocks on its first write and every later burst waits
// in the holder's queue: no socket buffer stands between the queue and
// the cap.
func TestHolder_CutsAtTheGatesOutputLimit(t *testing.T) {
	cfg := DefaultConfig()
	cfg.OutputLimitKiB = 16
	var logs bytes.Buffer
	h := NewHolder(cfg, "test", slog.New(slog.NewTextHandler(&logs, nil)))
	server, client := net.Pipe()
	defer client.Close()
	hd := &held{h: h, id: 1, front: "telnet", c: newTelnetConn(server, telnet.Config{MaxLine: 4096, MaxSubneg: 8192}, func([]byte) {})}
	line := []byte(strings.Repeat("x", 1000) + "\n")
	posted := 0
	for h.Cuts() == 0 && posted < 2<<20 { // 2 MiB: past any limit this test could mistake for the gate's
		hd.post([]boundary.Op{{Kind: boundary.OpText, Data: line}}, false)
		posted += len(line)
		if hd.closed() {
			break
		}
	}
	if !hd.closed() {
		t.Fatalf("the holder kept %d bytes for a client that reads nothing, past gate.output_limit_kib of 16 KiB", posted)
	}
	if posted > 20<<10 {
		t.Errorf("the holder cut the client after %d bytes; want just past 16 KiB (a burst writing and the limit waiting)", posted)
	}
	_ = h.gr.Wait(t.Context()) // the cut's goroutine, and its log line
	if got := logs.String(); !strings.Contains(got, "event=2413") || !strings.Contains(got, "bytes waiting") {
		t.Errorf("the cut was not logged with what waited:\n%s", got)
	}
	if n := h.Cuts(); n != 1 {
		t.Errorf("the holder counts %d cuts; want 1", n)
	}
}

// closed reports whether the holder has stopped taking output for hd.
func (hd *held) closed() bool {
	hd.omu.Lock()
	defer hd.omu.Unlock()
	return hd.closing
}
