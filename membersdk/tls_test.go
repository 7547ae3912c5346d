package membersdk

import (
	"encoding/pem"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
)

func TestHTTPClientWithCA(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {}))
	defer srv.Close()
	dir := t.TempDir()
	ca := filepath.Join(dir, "ca.crt")
	if err := os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}), 0o600); err != nil {
		t.Fatal(err)
	}
	hc, err := HTTPClientWithCA(ca, "", "")
	if err != nil {
		t.Fatal(err)
	}
	resp, err := hc.Get(srv.URL)
	if err != nil {
		t.Fatalf("trusting the CA file: %v", err)
	}
	resp.Body.Close()
	if resp, err := (&http.Client{}).Get(srv.URL); err == nil {
		resp.Body.Close()
		t.Fatal("the default client trusted a private CA")
	}
	for name, args := range map[string][3]string{
		"missing CA file":   {filepath.Join(dir, "nope.crt"), "", ""},
		"not a certificate": {filepath.Join(dir, "empty.crt"), "", ""},
		"cert without key":  {ca, ca, ""},
	} {
		_ = os.WriteFile(filepath.Join(dir, "empty.crt"), []byte("nothing"), 0o600)
		if _, err := HTTPClientWithCA(args[0], args[1], args[2]); !errors.Is(err, ErrCAFile) {
			t.Errorf("%s: %v, want ErrCAFile", name, err)
		}
	}
}
