package benchresult

// Memory is actors/host TestMemoryPerMemberBenchmark's figures for RSC_BENCH_RESULT (KiB per member
// against the process before the members joined; steady figures are zero when skipped).
type Memory struct {
	Kind           string  `json:"kind"` // "memory"
	Groups         int     `json:"groups"`
	Members        int     `json:"members"` // in all
	Shards         int     `json:"shards"`
	NonOK          int64   `json:"nonOk"`
	BeforeRSSMiB   float64 `json:"beforeRssMiB"`
	BeforeHeapMiB  float64 `json:"beforeHeapInuseMiB"`
	HeapInuseKiB   float64 `json:"heapInuseKiB"`
	LiveKiB        float64 `json:"liveKiB"`
	RSSReturnedKiB float64 `json:"rssReturnedKiB"`
	RSSAfterGCKiB  float64 `json:"rssAfterGcKiB"`
	SteadyRounds   int     `json:"steadyRounds"`
	SteadyRSSMean  float64 `json:"steadyRssMeanKiB"`
	SteadyRSSMax   float64 `json:"steadyRssMaxKiB"`
	SteadyHeapMean float64 `json:"steadyHeapInuseMeanKiB"`
	GCCPUPercent   float64 `json:"gcCpuPercent"`
	HeartbeatsPerS float64 `json:"steadyHeartbeatsPerSecond"`
	MemoryLimit    string  `json:"memoryLimit"`
	RoundsSeconds  float64 `json:"joinSeconds"`
}

// Idle is one setup of the idle-reads benchmarks for RSC_BENCH_RESULT.
type Idle struct {
	Kind           string           `json:"kind"` // "idle"
	Nodes          int              `json:"nodes"`
	Groups         int              `json:"groups"`
	WindowSeconds  float64          `json:"windowSeconds"`
	Commands       int64            `json:"commands"`
	CommandsPerSec float64          `json:"commandsPerSecond"`
	Stats          map[string]int64 `json:"stats"`
	NonOK          int64            `json:"nonOk"`
}
