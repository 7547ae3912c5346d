package group

import (
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/redisstream/coordinator/persistence"
)

// Kind is the cluster kind of group grains.
const Kind = "group"

// errBadIdentity means a cluster identity does not name a group.
var errBadIdentity = errors.New("group: malformed grain identity")

// IdentityOf is the cluster identity of a group's grain:
// "{streamPrefix}/{consumerGroup}", each part path-escaped, because names may
// contain '/' (protocol.ValidateName) and no two groups may share an identity.
func IdentityOf(key persistence.GroupKey) string {
	return url.PathEscape(key.StreamPrefix) + "/" + url.PathEscape(key.ConsumerGroup)
}

// keyOfIdentity is the inverse of IdentityOf.
func keyOfIdentity(id string) (persistence.GroupKey, error) {
	p, g, ok := strings.Cut(id, "/")
	if !ok || strings.Contains(g, "/") {
		return persistence.GroupKey{}, fmt.Errorf("%w: %q", errBadIdentity, id)
	}
	prefix, err1 := url.PathUnescape(p)
	grp, err2 := url.PathUnescape(g)
	if err1 != nil || err2 != nil || prefix == "" || grp == "" {
		return persistence.GroupKey{}, fmt.Errorf("%w: %q", errBadIdentity, id)
	}
	return persistence.GroupKey{StreamPrefix: prefix, ConsumerGroup: grp}, nil
}
