package main

import (
	"strings"

	"github.com/redisstream/coordinator/membersdk"
)

// listFlag is a repeatable flag that also takes comma-separated lists:
// -redis a:6379 -redis b:6379 or -redis a:6379,b:6379.
type listFlag struct {
	vals []string
	set  bool
}

func (l *listFlag) String() string { return strings.Join(l.vals, ",") }

func (l *listFlag) Set(v string) error {
	if !l.set { // the first -redis replaces the default
		l.vals, l.set = nil, true
	}
	for _, s := range strings.Split(v, ",") {
		if s = strings.TrimSpace(s); s != "" {
			l.vals = append(l.vals, s)
		}
	}
	return nil
}

// mailboxPrincipal is principal with the Redis mailbox transport, else ""
// (the option is for the mailbox only).
func mailboxPrincipal(transport, principal string) string {
	if transport == membersdk.TransportRedis {
		return principal
	}
	return ""
}
