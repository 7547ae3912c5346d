package membersdk

import (
	"crypto/rand"
	"encoding/hex"
	"os"
	"strconv"
	"strings"
	"sync"
)

// EnvPodIP is the environment variable the default member id is built from
// (set it from the Kubernetes downward API: status.podIP).
const EnvPodIP = "POD_IP"

// DefaultMemberID returns the member id of the index-th logical member of this
// process: the value of $POD_IP, then "-m<index>" (example: "10.0.3.7-m0").
// When POD_IP is unset it is the host name plus a per-process part, the
// process id and four random hex digits made once per process, then
// "-m<index>" (example: "vm-41237.9f3a-m0"), so that two processes on one
// host never share an id.
//
// A member id must be unique in its consumer group while the member is alive
// (it is also the Redis consumer name). One pod IP is one pod, so
// "<podIP>-m<index>" is unique as long as each process numbers its logical
// members 0, 1, 2, …. Should two processes still be given one id, the
// coordinator refuses the second (MEMBER_ID_IN_USE, see identity.go).
func DefaultMemberID(index int) string {
	base := strings.TrimSpace(os.Getenv(EnvPodIP))
	if base == "" {
		h, err := os.Hostname()
		if err != nil || h == "" {
			h = "localhost"
		}
		base = h + "-" + processPart()
	}
	return sanitizeMemberID(base) + "-m" + strconv.Itoa(index)
}

var processPart = sync.OnceValue(func() string {
	var b [2]byte
	_, _ = rand.Read(b[:]) // crypto/rand does not fail on supported systems; zeros still leave the pid
	return strconv.Itoa(os.Getpid()) + "." + hex.EncodeToString(b[:])
})

// sanitizeMemberID replaces characters a member id may not contain (see
// protocol.ValidateMemberID) with '-', so that an odd host name still gives a
// usable id.
func sanitizeMemberID(s string) string {
	b := []byte(s)
	for i, c := range b {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '.', c == '_', c == '-', c == ':':
		default:
			b[i] = '-'
		}
	}
	return string(b)
}
