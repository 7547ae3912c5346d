package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"sync"
	"sync/atomic"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/redisstream/coordinator/membersdk/protocol"
)

// ---- load ------------------------------------------------------------------

type loadRound struct {
	Target     string  `json:"target"`
	Round      int     `json:"round"`
	Heartbeats int64   `json:"heartbeats"`
	Failed     int64   `json:"failed"`
	Seconds    float64 `json:"seconds"`
	CPUSeconds float64 `json:"cpuSeconds"`
	CPUMicros  float64 `json:"cpuMicrosPerHeartbeat"`
}

type loadResult struct {
	Members, Groups, Shards, Conns int
	Rounds                         []loadRound `json:"rounds"`
	Coordinator                    float64     `json:"coordinatorCpuMicrosPerHeartbeat"`
	Baseline                       float64     `json:"baselineCpuMicrosPerHeartbeat"`
	Ratio                          float64     `json:"ratio"`
}

func load() (any, error) {
	all := make([]*state, 0, *members)
	for i := 0; i < *members; i++ {
		all = append(all, &state{group: fmt.Sprintf("g%02d", i%*groups), id: fmt.Sprintf("m%04d", i)})
	}
	client := func(base string) *fasthttp.HostClient {
		u, _ := url.Parse(base)
		return &fasthttp.HostClient{Addr: u.Host, MaxConns: *conns, ReadTimeout: 10 * time.Second, WriteTimeout: 10 * time.Second,
			IsTLS: u.Scheme == "https", TLSConfig: clientTLS()}
	}
	cc, bc := client(*coord), client(*baseline)
	do := func(c *fasthttp.HostClient, m *state, body []byte) (*protocol.HeartbeatResponse, []byte, error) {
		req, resp := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
		defer fasthttp.ReleaseRequest(req)
		defer fasthttp.ReleaseResponse(resp)
		req.Header.SetMethod("POST")
		scheme := "http://"
		if c.IsTLS {
			scheme = "https://"
		}
		req.SetRequestURI(scheme + c.Addr + hbPath(m.group, m.id))
		req.Header.SetContentType("application/json")
		req.SetBody(body)
		if err := c.Do(req, resp); err != nil {
			return nil, nil, err
		}
		if resp.StatusCode() != 200 {
			return nil, nil, fmt.Errorf("HTTP %d: %s", resp.StatusCode(), resp.Body())
		}
		return nil, append([]byte(nil), resp.Body()...), nil
	}
	// Join and settle: sweep every member until all answer OK with nothing pending.
	deadline := time.Now().Add(*timeout)
	for {
		var pending atomic.Int64
		parallel(all, *conns, func(m *state) {
			_, raw, err := do(cc, m, m.request())
			if err != nil {
				pending.Add(1)
				return
			}
			var r protocol.HeartbeatResponse
			if json.Unmarshal(raw, &r) != nil {
				pending.Add(1)
				return
			}
			m.apply(&r)
			if r.Status != protocol.StatusOK || len(r.Assignment.PendingShards) > 0 {
				pending.Add(1)
			}
		})
		if pending.Load() == 0 {
			break
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("load: %d members not settled", pending.Load())
		}
	}
	bodies := make([][]byte, len(all))
	res := &loadResult{Members: *members, Groups: *groups, Shards: *shards, Conns: *conns}
	var cpu [2]float64
	var hbs [2]int64
	for round := 0; round < *rounds; round++ {
		for ti, target := range []struct {
			name string
			c    *fasthttp.HostClient
			pid  int
		}{{"coordinator", cc, *coordPID}, {"baseline", bc, *basePID}} {
			for i, m := range all {
				bodies[i] = m.request() // a fresh requestId per round
			}
			var done, failed atomic.Int64
			before, err := cpuSeconds(target.pid)
			if err != nil {
				return nil, err
			}
			start := time.Now()
			stop := start.Add(*window)
			var wg sync.WaitGroup
			for w := 0; w < *conns; w++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := w; time.Now().Before(stop); i += *conns {
						k := i % len(all)
						if _, raw, err := do(target.c, all[k], bodies[k]); err != nil || !bytes.Contains(raw, []byte(`"status":"OK"`)) {
							failed.Add(1)
							continue
						}
						done.Add(1)
					}
				}()
			}
			wg.Wait()
			el := time.Since(start).Seconds()
			after, err := cpuSeconds(target.pid)
			if err != nil {
				return nil, err
			}
			r := loadRound{Target: target.name, Round: round, Heartbeats: done.Load(), Failed: failed.Load(), Seconds: el, CPUSeconds: after - before}
			if r.Heartbeats > 0 {
				r.CPUMicros = r.CPUSeconds * 1e6 / float64(r.Heartbeats)
			}
			res.Rounds = append(res.Rounds, r)
			cpu[ti] += r.CPUSeconds
			hbs[ti] += r.Heartbeats
		}
	}
	if hbs[0] > 0 && hbs[1] > 0 {
		res.Coordinator = cpu[0] * 1e6 / float64(hbs[0])
		res.Baseline = cpu[1] * 1e6 / float64(hbs[1])
		res.Ratio = res.Coordinator / res.Baseline
	}
	return res, nil
}
