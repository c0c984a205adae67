package gate

import (
	"errors"
	"log/slog"
	"net"
	"sync/atomic"
	"time"

	"zonemud/internal/logev"
	"zonemud/net/telnet"
)

// acceptLoop hands each connection accepted on l to handle until stopping
// is set or l is closed, and then returns nil. An accept that fails for
// another reason (out of file descriptors and the like) is logged and
// tried again after a wait that doubles up to a second: the loop never
// spins and never dies. The gate's listeners and the holder's share it.
func acceptLoop(l net.Listener, stopping *atomic.Bool, log *slog.Logger, front string, handle func(net.Conn)) error {
	var backoff time.Duration
	for {
		c, err := l.Accept()
		if err != nil {
			if stopping.Load() || errors.Is(err, net.ErrClosed) {
				return nil
			}
			backoff = min(max(2*backoff, 5*time.Millisecond), time.Second)
			log.Warn("gate: accept failed; retrying", logev.ID(2001), "front", front, "err", err, "after", backoff)
			time.Sleep(backoff)
			continue
		}
		backoff = 0
		handle(c)
	}
}

// telnetConfig is what every telnet connection offers, the gate's and the
// holder's alike, within cfg's bounds on lines and subnegotiations.
func (cfg Config) telnetConfig() telnet.Config {
	return telnet.Config{
		MaxLine: cfg.MaxLine, MaxSubneg: cfg.MaxSubneg,
		OfferNAWS: true, OfferTTYPE: true, OfferCharset: true, OfferEOR: true,
		OfferGMCP: true, OfferMSSP: true, OfferMCCP2: true,
	}
}
