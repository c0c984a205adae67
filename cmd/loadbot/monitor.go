package main

import (
	"context"
	"math"
	"os"
	"time"
)

// monitorEvery is how often the monitor samples /proc.
const monitorEvery = 250 * time.Millisecond

// scrapeEvery is how often /metrics is read during the window; the server
// reports the worst lateness since the previous read.
const scrapeEvery = 2 * time.Second

// monitor watches the server from outside while a run goes on: its CPU
// time and resident set from /proc (with Config.PID), and its zones' pulse
// lateness from /metrics (with Config.Metrics). It runs on its own
// goroutine; its results are read once stop has returned.
type monitor struct {
	r    *run
	quit chan struct{}
	done chan struct{}

	// Results, written by the monitor goroutine.
	base            procSample // before the first bot connected
	haveBase        bool
	winFirst        procSample // first sample inside the window
	winFirstAt      int64      // its mono()
	winLast         procSample // last sample inside the window
	winLastAt       int64
	selfFirst       procSample // the load tool's own, at the same moments
	selfLast        procSample
	playMax         int64 // largest resident set inside the window
	peak            int64 // largest resident set of the whole run
	quitMax         int64 // largest resident set once the quit storm began
	playAnon        int64 // largest anonymous resident set inside the window (0: unknown)
	quitAnon        int64 // largest anonymous resident set once the quit storm began (0: unknown)
	last            procSample
	procErr         error
	scrapes         []scrape // the window's reads of /metrics
	scrapeErr       error
	lastScrape      int64 // mono() of the last read
	finalScrapeDone bool
}

func newMonitor(r *run) *monitor {
	return &monitor{r: r, quit: make(chan struct{}), done: make(chan struct{})}
}

func (m *monitor) start() {
	if m.r.cfg.PID == 0 && m.r.cfg.Metrics == "" {
		close(m.done)
		return
	}
	if m.r.cfg.PID != 0 {
		if s, err := readProc("/proc", m.r.cfg.PID); err == nil {
			m.base, m.haveBase, m.last = s, true, s
		} else {
			m.procErr = err
		}
	}
	go m.loop()
}

// stop takes a last sample and waits for the monitor goroutine.
func (m *monitor) stop() {
	select {
	case <-m.done:
		return
	default:
	}
	close(m.quit)
	<-m.done
}

func (m *monitor) loop() {
	defer close(m.done)
	t := time.NewTicker(monitorEvery)
	defer t.Stop()
	for {
		select {
		case <-m.quit:
			m.sample()
			return
		case <-t.C:
			m.sample()
		}
	}
}

func (m *monitor) sample() {
	r := m.r
	now := r.mono()
	ws, we, stopAt := r.winStart.Load(), r.winEnd.Load(), r.stopAt.Load()
	inWin := now >= ws && now < we
	if r.cfg.PID != 0 && m.procErr == nil {
		s, err := readProc("/proc", r.cfg.PID)
		if err != nil {
			m.procErr = err
		} else {
			m.last = s
			m.peak = max(m.peak, s.rss)
			if inWin {
				self, _ := readProc("/proc", os.Getpid())
				if m.winFirstAt == 0 {
					m.winFirst, m.winFirstAt, m.selfFirst = s, now, self
				}
				m.winLast, m.winLastAt, m.selfLast = s, now, self
				m.playMax = max(m.playMax, s.rss)
				m.playAnon = max(m.playAnon, s.anon)
			}
			if stopAt != 0 && now >= stopAt {
				m.quitMax = max(m.quitMax, s.rss)
				m.quitAnon = max(m.quitAnon, s.anon)
			}
		}
	}
	if r.cfg.Metrics == "" || m.scrapeErr != nil || m.finalScrapeDone {
		return
	}
	switch {
	case inWin && (len(m.scrapes) == 0 || now-m.lastScrape >= int64(scrapeEvery)):
	case now >= we && ws != math.MaxInt64 && len(m.scrapes) > 0:
		m.finalScrapeDone = true // the read that closes the window
	default:
		return
	}
	sc, err := fetchMetrics(context.Background(), r.cfg.Metrics)
	if err != nil {
		m.scrapeErr = err
		return
	}
	m.scrapes = append(m.scrapes, sc)
	m.lastScrape = now
}

// Server is what the monitor saw of the server.
type Server struct {
	PID int
	// CPU is the server's CPU time over the window as a share of one core
	// (1.5 is one and a half cores busy); ToolCPU the load tool's own, to
	// tell a server's limit from the tool's.
	CPU, ToolCPU float64
	// RSSBase is the resident set before the first bot connected; RSSPlay
	// the largest inside the window; RSSQuit the largest from the quit
	// storm to the end; RSSPeak the largest of the whole run, logins
	// included; RSSEnd the last sample.
	RSSBase, RSSPlay, RSSQuit, RSSPeak, RSSEnd int64
	// AnonPlay and AnonQuit are the largest anonymous part of the
	// resident set (RSS less mapped files such as the database) in the
	// window and from the quit storm on; 0 if not known. A quit storm
	// writes every character, which maps more of the database file:
	// these tell that from memory the server holds.
	AnonPlay, AnonQuit int64
	// PerPlayer is (RSSPlay - RSSBase) / bots logged in.
	PerPlayer int64
	Lateness  []ZoneLateness // worst first
	// Writes and Lines are the server's writes to sockets over the window
	// and the lines of text they carried; -1 if it does not count them.
	Writes, Lines int64
	// Flushes is the zones' flushes of players' output over the window by
	// cause (answer, talk, gathered, news, other); nil if not counted.
	Flushes map[string]int64
	Errors  []string
}

func (m *monitor) server(loggedIn int) *Server {
	r := m.r
	if r.cfg.PID == 0 && r.cfg.Metrics == "" {
		return nil
	}
	s := &Server{PID: r.cfg.PID, Writes: -1, Lines: -1}
	if r.cfg.PID != 0 {
		if m.winLastAt > m.winFirstAt {
			s.CPU = float64(m.winLast.cpu-m.winFirst.cpu) / float64(m.winLastAt-m.winFirstAt)
			s.ToolCPU = float64(m.selfLast.cpu-m.selfFirst.cpu) / float64(m.winLastAt-m.winFirstAt)
		}
		s.RSSBase, s.RSSPlay, s.RSSQuit, s.RSSPeak, s.RSSEnd = m.base.rss, m.playMax, m.quitMax, max(m.peak, m.base.rss), m.last.rss
		s.AnonPlay, s.AnonQuit = m.playAnon, m.quitAnon
		if loggedIn > 0 && m.haveBase && m.playMax > 0 {
			s.PerPlayer = (m.playMax - m.base.rss) / int64(loggedIn)
		}
		if m.procErr != nil {
			s.Errors = append(s.Errors, m.procErr.Error())
		}
	}
	if r.cfg.Metrics != "" {
		s.Lateness = latenessOver(m.scrapes)
		s.Writes, s.Lines = outputOver(m.scrapes)
		s.Flushes = flushesOver(m.scrapes)
		if m.scrapeErr != nil {
			s.Errors = append(s.Errors, m.scrapeErr.Error())
		}
	}
	return s
}
