package chaos

import (
	"os/exec"
	"strings"

	"github.com/redisstream/coordinator/test/harness"
)

// Report is the machine-readable outcome of a chaos run.
type Report struct {
	Seed         int64   `json:"seed"`
	Revision     string  `json:"revision"` // git describe --always --dirty of the tree under test
	Duration     string  `json:"duration"` // fault phase
	WallSeconds  float64 `json:"wallSeconds"`
	StartedAt    string  `json:"startedAt"`
	Coordinators int     `json:"coordinators"`
	Redis        string  `json:"redis"` // single (one redis-server) or sentinel (primary, replicas, Sentinels)
	// ExactlyOnce is the pipeline check of TestChaosExactlyOnce (nil in
	// the at-least-once runs).
	ExactlyOnce       *eosReport     `json:"exactlyOnce,omitempty"`
	Transport         string         `json:"transport"`      // how members heartbeat: http, redis (the mailbox) or mixed
	MailboxMembers    int            `json:"mailboxMembers"` // members heartbeating through the mailbox
	Members           int            `json:"members"`
	ProxiedMembers    int            `json:"proxiedMembers"`
	Shards            int            `json:"shards"`
	ProducerRate      int            `json:"producerRatePerSecond"`
	HeartbeatInterval string         `json:"heartbeatInterval"`
	LeaseTTL          string         `json:"memberLeaseTtl"`
	RebalanceTimeout  string         `json:"rebalanceTimeout"`
	FaultsByType      map[string]int `json:"faultsByType"`
	FaultsTotal       int            `json:"faultsTotal"`
	Faults            []injected     `json:"faults"`

	Produced  int `json:"produced"`
	Processed int `json:"processed"`
	Lost      int `json:"lost"`
	// AckedUnrecorded are entries whose handler ran and which Redis shows
	// acknowledged (not pending), but whose ACKED record never came: the
	// member was killed, or Redis stopped, between the XACK reaching Redis
	// and the member reading its reply. They count as processed, and are
	// excused only when such a fault followed the handler within faultAfter.
	AckedUnrecorded int `json:"ackedUnrecorded"`
	// LateAckConfirmations are ACKED records the SDK emits when a worker
	// starts and settles an XACK whose reply was lost earlier: they carry the
	// old epoch and the time of the confirmation, not of the XACK, so they
	// count for loss but not for overlap windows or the pause checks.
	LateAckConfirmations   int      `json:"lateAckConfirmations"`
	AckedUnrecordedEntries []string `json:"ackedUnrecordedEntries,omitempty"`
	LostSeqs               []int64  `json:"lostSeqs,omitempty"`
	Duplicates             int      `json:"duplicates"`
	HandOffs               int      `json:"handOffs"`
	OverlapWindows         int      `json:"overlapWindows"`
	Overlaps               []string `json:"overlaps"`
	// FenceOverlapWindows counts double-processing windows found in the
	// fence history rather than in ack times (recorder.Report.FenceOverlaps):
	// a fencing token acknowledged with by two members, a member acking with
	// a token older than one another member already acked with, or a token
	// above the shard's final fence token in Redis. FencedAcks is how many
	// acknowledgements carried a token (the figure's sample size).
	FenceOverlapWindows int      `json:"fenceOverlapWindows"`
	FenceOverlaps       []string `json:"fenceOverlaps"`
	FencedAcks          int      `json:"fencedAcks"`
	PublishRetries      int64    `json:"publishRetries"`
	StreamEntries       int64    `json:"streamEntries"`
	RedisPendingEnd     int64    `json:"redisPendingAtEnd"`
	RedisLagEnd         int64    `json:"redisLagAtEnd"`

	monitorFigures
	reshardFigures

	Pauses                 int      `json:"pauses"`
	PausesHoldingShards    int      `json:"pausesHoldingShards"`
	PausesSelfFenced       int      `json:"pausesSelfFenced"`
	PausesWithoutFence     []string `json:"pausesWithoutFence"`
	AckedAfterReassignment []string `json:"ackedAfterReassignment"`
	// StaleAcks are acknowledgements by a paused member, after it was
	// continued, of entries the new owner had already claimed and handled:
	// proof of an XACK sent after the shard was reassigned.
	StaleAcks []string       `json:"staleAcks"`
	Events    map[string]int `json:"events"`

	// SupervisorRestarts counts the coordinator processes that exited on
	// their own (a node the cluster evicted, typically after a pause past
	// its tolerance, exits with code 3) and that the test's supervisor
	// started again, as systemd would; the list says when, after which
	// fault and why. ClusterFormedAtEnd: after the settle, every node was
	// running and every node saw exactly the running nodes (cluster runs).
	SupervisorRestarts    int          `json:"supervisorRestarts"`
	SupervisorRestartList []supervised `json:"supervisorRestartList"`
	ClusterFormedAtEnd    *bool        `json:"clusterFormedAtEnd,omitempty"`
	// GracefulStops are the SIGTERMs of coordinator-restart faults: the
	// time from SIGTERM to exit. A node still running 15 s after SIGTERM
	// is killed, and that fails the run.
	GracefulStops []gracefulStop `json:"gracefulStops"`

	// LongestUnownedNoInfraMs is the longest unowned gap that did not
	// overlap a Redis or coordinator fault (from injection to one lease
	// after recovery): the liveness figure for member faults alone.
	LongestUnownedNoInfraMs    int64  `json:"longestUnownedGapMemberFaultsOnlyMs"`
	LongestUnownedNoInfraShard int    `json:"longestUnownedGapMemberFaultsOnlyShard"`
	LongestUnownedNoInfraFrom  string `json:"longestUnownedGapMemberFaultsOnlyFrom,omitempty"`

	// LongestAckGapMs is the data-plane view of unavailability: the longest
	// time, while the producer ran, between two acknowledgements on one
	// shard (any member). At 100 entries/s over 12 shards the steady-state
	// gap is a few hundred milliseconds.
	LongestAckGapMs    int64  `json:"longestAckGapMs"`
	LongestAckGapShard int    `json:"longestAckGapShard"`
	LongestAckGapFrom  string `json:"longestAckGapFrom,omitempty"`

	SettleSeconds float64  `json:"settleSeconds"`
	DrainSeconds  float64  `json:"drainSeconds"`
	Passed        bool     `json:"passed"`
	Failures      []string `json:"failures"`
}

func revision() string {
	out, err := exec.Command("git", "-C", harness.RepoRoot(), "describe", "--always", "--dirty").Output()
	if err != nil {
		return "unknown"
	}
	return strings.TrimSpace(string(out))
}
