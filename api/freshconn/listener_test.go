package freshconn

import (
	"errors"
	"io"
	"net"
	"os"
	"testing"
	"time"
)

// accept wraps a loopback listener, dials it and returns both ends.
func accept(t *testing.T) (*Listener, net.Conn, net.Conn) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	l := Wrap(ln)
	t.Cleanup(func() { _ = l.Close() })
	client, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = client.Close() })
	server, err := l.Accept()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = server.Close() })
	return l, client, server
}

// A connection that sent nothing: its pending read fails at the cutoff,
// even though the server asked for a later deadline.
func TestCutFreshEndsAReadOnAnUnusedConnection(t *testing.T) {
	l, _, server := accept(t)
	if err := server.SetReadDeadline(time.Now().Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	errc := make(chan error, 1)
	go func() { _, err := server.Read(make([]byte, 1)); errc <- err }()
	start := time.Now()
	l.CutFresh(100 * time.Millisecond)
	select {
	case err := <-errc:
		if !errors.Is(err, os.ErrDeadlineExceeded) {
			t.Fatalf("read error = %v, want a deadline timeout", err)
		}
		if took := time.Since(start); took > 5*time.Second {
			t.Fatalf("read ended after %s, want about the 100ms grace", took)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the read on an unused connection did not end after CutFresh")
	}
	// A deadline the server sets later is held to the cutoff too.
	if err := server.SetReadDeadline(time.Now().Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	if _, err := server.Read(make([]byte, 1)); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("read after a later deadline = %v, want a deadline timeout", err)
	}
}

// A connection that sent a byte is not touched: its read waits for data.
func TestCutFreshLeavesAUsedConnectionAlone(t *testing.T) {
	l, client, server := accept(t)
	if _, err := client.Write([]byte("GE")); err != nil {
		t.Fatal(err)
	}
	if _, err := io.ReadFull(server, make([]byte, 2)); err != nil {
		t.Fatal(err)
	}
	l.CutFresh(0)
	errc := make(chan error, 1)
	go func() { _, err := io.ReadFull(server, make([]byte, 1)); errc <- err }()
	time.AfterFunc(300*time.Millisecond, func() { _, _ = client.Write([]byte("T")) })
	select {
	case err := <-errc:
		if err != nil {
			t.Fatalf("read on a used connection after CutFresh: %v, want the next byte", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the read on a used connection did not get the byte sent after CutFresh")
	}
}

// A connection accepted after CutFresh starts with the cutoff; a closed
// connection is no longer tracked.
func TestAcceptAfterCutFreshAndClose(t *testing.T) {
	l, _, server := accept(t)
	l.CutFresh(0)
	if got := l.Tracked(); got != 1 {
		t.Fatalf("Tracked() = %d, want 1", got)
	}
	_ = server.Close()
	if got := l.Tracked(); got != 0 {
		t.Fatalf("Tracked() after Close = %d, want 0", got)
	}
	client, err := net.Dial("tcp", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	late, err := l.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer late.Close()
	if _, err := late.Read(make([]byte, 1)); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("read on a connection accepted after CutFresh = %v, want a deadline timeout", err)
	}
}
