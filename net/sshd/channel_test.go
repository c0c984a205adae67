package sshd

import (
	"bytes"
	"io"
	"log/slog"
	"net"
	"strings"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"
)

// fakeChannel reads its input a few bytes at a time, as a network would.
type fakeChannel struct {
	gossh.Channel // nil: only Read is used
	in            *bytes.Reader
}

func (f *fakeChannel) Read(p []byte) (int, error) { return f.in.Read(p[:min(len(p), 7)]) }

func TestChannel_Read_CutsLongLines(t *testing.T) {
	long := strings.Repeat("x", maxInputLine)
	for _, tc := range []struct{ name, in, want string }{
		{"short lines pass", "look\rsay hi\r\n", "look\rsay hi\r\n"},
		{"a line at the cap passes", long + "\r", long + "\r"},
		{"past the cap is dropped until the line end", long + "yyyy\rlook\r", long + "\rlook\r"},
		{"LF ends a line too", long + "yy\nlook" + long + "z\r", long + "\nlook" + long[:maxInputLine-4] + "\r"},
		{"whole characters are dropped", "a" + strings.Repeat("é", maxInputLine) + "\r", "a" + strings.Repeat("é", maxInputLine-1) + "\r"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := &channel{Channel: &fakeChannel{in: bytes.NewReader([]byte(tc.in))}}
			got, err := io.ReadAll(c)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want {
				t.Fatalf("got %d bytes %.40q..., want %d bytes %.40q...", len(got), got, len(tc.want), tc.want)
			}
		})
	}
}

func TestSizes_NeverBlocks(t *testing.T) {
	z := newSizes()
	for i := 0; i < 1000; i++ {
		z.put(i, i) // nobody reads: put must not block
	}
	if got := <-z.c; got != [2]int{999, 999} {
		t.Fatalf("got %v, want the newest size [999 999]", got)
	}
	z.close()
	z.close()
	z.put(1, 1) // after close: ignored, no panic
	if _, ok := <-z.c; ok {
		t.Fatal("sizes not closed")
	}
}

func TestCleanTermAndClamp(t *testing.T) {
	if got := cleanTerm("xterm-256color\x1b[31m;rm -rf"); got != "xterm-256color31mrm-rf" {
		t.Fatalf("cleanTerm = %q", got)
	}
	if got := cleanTerm(strings.Repeat("a", 100)); len(got) != maxTerm {
		t.Fatalf("cleanTerm kept %d characters, want %d", len(got), maxTerm)
	}
	if clampDim(0) != 0 || clampDim(65535) != maxDim || clampDim(1<<32-1) != maxDim || clampDim(80) != 80 {
		t.Fatal("clampDim")
	}
}

// A connection whose last session ends after the connection was closed
// (shutdown closes connections while their sessions wind down) keeps its
// idle timer stopped: a timer that fired later would act, and log, for a
// connection that is gone.
func TestConn_IdleTimerStaysStoppedAfterClose(t *testing.T) {
	a, b := net.Pipe()
	defer b.Close()
	s := &Server{idle: time.Hour, conns: map[*conn]struct{}{}, log: slog.New(slog.DiscardHandler)}
	c := s.newConn(a)
	c.sessionStarted()
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	c.sessionEnded()
	if c.idle.Stop() {
		t.Fatal("the idle timer was armed again after the connection closed")
	}
}
