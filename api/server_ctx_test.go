package api

import (
	"context"
	"errors"
	"testing"
	"time"
)

func TestLazyDeadlineContext(t *testing.T) {
	s := &Server{cfg: Config{RequestTimeout: 30 * time.Millisecond}}
	ctx, cancel := s.ctx()
	dl, ok := ctx.Deadline()
	if !ok || time.Until(dl) > 30*time.Millisecond {
		t.Fatalf("deadline %v %v", dl, ok)
	}
	if ctx.Err() != nil {
		t.Fatal("Err before the deadline")
	}
	select {
	case <-ctx.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("Done not closed at the deadline")
	}
	if !errors.Is(ctx.Err(), context.DeadlineExceeded) {
		t.Fatalf("Err %v after the deadline", ctx.Err())
	}
	cancel()

	// Released without anyone asking: Done closed, Err Canceled.
	ctx, cancel = s.ctx()
	cancel()
	<-ctx.Done()
	if !errors.Is(ctx.Err(), context.Canceled) {
		t.Fatalf("Err %v after release", ctx.Err())
	}
	// Asked, then released before the deadline.
	s.cfg.RequestTimeout = time.Hour
	ctx, cancel = s.ctx()
	_ = ctx.Done()
	cancel()
	<-ctx.Done()
	if !errors.Is(ctx.Err(), context.Canceled) {
		t.Fatalf("Err %v after release", ctx.Err())
	}
}
