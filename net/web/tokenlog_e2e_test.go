package web_test

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"zonemud/server"
	"zonemud/server/servertest"
)

// syncBuffer is a log sink the server's goroutines share.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// A resume token is never written to the log, at any level: not when it
// is sent, used, spent or refused, nor at the debug level an admin turns
// on to look into a problem.
func TestResume_TokenNeverLogged(t *testing.T) {
	cfg := servertest.Config(t)
	var logs syncBuffer
	lg := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	srv, err := server.Start(cfg, server.Options{Log: lg})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := srv.Shutdown(ctx); err != nil {
			t.Error(err)
		}
	})
	addr := srv.WebAddr()
	a := newGMCP(t, addr)
	a.Create("Quietly", "quietly-pass")
	t1 := token(t, a.ExpectGMCP("Client.Resume"))
	_ = a.c.CloseNow()
	b := resumeWith(t, addr, `{"token":"`+t1+`"}`)
	b.Expect("Exits:")
	t2 := token(t, b.ExpectGMCP("Client.Resume"))
	r := resumeWith(t, addr, `{"token":"`+t1+`"}`) // spent: refused
	r.Expect("cannot be resumed")
	b.Send("quit")
	b.Expect("Farewell")
	b.WaitClosed()
	x := resumeWith(t, addr, `{"token":"`+t2+`"}`) // dead at quit: refused
	x.Expect("cannot be resumed")
	got := logs.String()
	if !strings.Contains(got, "Quietly") {
		t.Fatalf("the debug log says nothing of the session, so it proves nothing:\n%s", got)
	}
	for _, tok := range []string{t1, t2} {
		if strings.Contains(got, tok) || strings.Contains(got, tok[:16]) {
			t.Fatalf("a resume token is in the log:\n%s", got)
		}
	}
}

// Start-up logs the address to open in a browser, as the README shows
// it: the web listener's line with its url.
func TestStart_LogsTheURLToOpen(t *testing.T) {
	cfg := servertest.Config(t)
	var logs syncBuffer
	srv, err := server.Start(cfg, server.Options{Log: slog.New(slog.NewTextHandler(&logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
	})
	want := "url=http://" + srv.WebAddr() + "/"
	for _, line := range strings.Split(logs.String(), "\n") {
		if strings.Contains(line, "open the url in a browser to play") && strings.Contains(line, "listener=web") && strings.Contains(line, want) {
			return
		}
	}
	t.Fatalf("no start-up line with listener=web and %s:\n%s", want, logs.String())
}
