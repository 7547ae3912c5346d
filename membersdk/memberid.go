package membersdk

import (
	"os"
	"strconv"
	"strings"
)

// EnvPodIP is the environment variable the default member id is built from
// (set it from the Kubernetes downward API: status.podIP).
const EnvPodIP = "POD_IP"

// DefaultMemberID returns the member id of the index-th logical member of this
// process: the value of $POD_IP, or the host name when POD_IP is unset, then
// "-m<index>". Example: "10.0.3.7-m0".
//
// A member id must be unique in its consumer group while the member is alive
// (it is also the Redis consumer name). One pod IP is one pod, so
// "<podIP>-m<index>" is unique as long as each process numbers its logical
// members 0, 1, 2, ….
func DefaultMemberID(index int) string {
	base := strings.TrimSpace(os.Getenv(EnvPodIP))
	if base == "" {
		h, err := os.Hostname()
		if err != nil || h == "" {
			h = "localhost"
		}
		base = h
	}
	return sanitizeMemberID(base) + "-m" + strconv.Itoa(index)
}

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
