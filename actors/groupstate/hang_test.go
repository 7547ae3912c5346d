package groupstate

import (
	"math/rand"
	"testing"
	"time"
)

func TestFuzzRandomInputsQuick(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for i := 0; i < 20000; i++ {
		n := rng.Intn(300)
		b := make([]byte, n)
		rng.Read(b)
		start := time.Now()
		done := make(chan bool)
		go func() {
			defer close(done)
			runFuzzOnce(t, b)
		}()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			t.Fatalf("hang on %x", b)
		}
		if time.Since(start) > time.Second {
			t.Fatalf("slow %x", b)
		}
	}
}
