package membersdk

import (
	"github.com/redisstream/coordinator/membersdk/internal/hbtransport"
	"github.com/redisstream/coordinator/membersdk/internal/mailbox"
	"github.com/redisstream/coordinator/membersdk/protocol"
)

// mailboxWhere prefixes the request stream key where errors and events name
// the coordinator of a mailbox member (its URL over HTTP).
const mailboxWhere = hbtransport.MailboxWhere

// newMailboxHeartbeater is the Redis mailbox transport (TransportRedis) of
// the member cfg describes.
func newMailboxHeartbeater(cfg *ConsumerConfig) *hbtransport.Mailbox {
	mb := mailbox.New(mailbox.Config{
		Redis: cfg.Redis, KeyPrefix: cfg.MailboxKeyPrefix, Principal: cfg.MailboxPrincipal,
		Stream: cfg.StreamPrefix, Group: cfg.ConsumerGroup, Member: cfg.MemberID,
		MaxRequests: protocol.DefaultMailboxMaxRequests, Logger: cfg.Logger,
	})
	return hbtransport.NewMailbox(mb, cfg.RequestTimeout, statusError)
}
