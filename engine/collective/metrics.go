package collective

// Metrics are the numbers a reader sees for one run. The JSON names are a
// contract: the CLI prints them and the page's state().metrics carries them.
type Metrics struct {
	Op    Op     `json:"op"`
	Algo  Algo   `json:"algo"`
	Ranks int    `json:"ranks"`
	Bytes int64  `json:"bytes"`
	Link  string `json:"link"`
	// Nodes and Inter: the ring grown to several nodes (omitted on one).
	Nodes int    `json:"nodes,omitempty"`
	Inter string `json:"inter,omitempty"`
	// TimeS is the simulated time until the last byte arrived, seconds.
	TimeS float64 `json:"time_s"`
	// BytesSentPerRank is the most any one rank sent (the root, for a star).
	BytesSentPerRank int64 `json:"bytes_sent_per_rank"`
	// AlgBWGBps is the algorithm bandwidth S / time, in GB/s (10^9 B/s).
	AlgBWGBps float64 `json:"algbw_GBps"`
	// BusBWGBps is algbw · 2(n−1)/n, in GB/s (nccl-tests' convention).
	BusBWGBps float64 `json:"busbw_GBps"`
	// ClosedFormTimeS is the alpha-beta formula's time for the same
	// configuration, seconds.
	ClosedFormTimeS float64 `json:"closed_form_time_s"`
	Rounds          int     `json:"rounds"`
	// MaxLinkUtilization is the busiest port's share of the run spent
	// sending: its bytes ÷ (bandwidth × time).
	MaxLinkUtilization float64 `json:"max_link_utilization"`
}

// Metrics computes the reader-facing numbers of a run.
func (res *Result) Metrics() Metrics {
	c := res.Config
	m := Metrics{
		Op:     c.Op,
		Algo:   c.Algo,
		Ranks:  c.Ranks,
		Bytes:  c.Bytes,
		Link:   c.Link.ID,
		TimeS:  res.Time.Seconds(),
		Rounds: res.Rounds,
	}
	for _, b := range res.SentPerRank {
		if b > m.BytesSentPerRank {
			m.BytesSentPerRank = b
		}
	}
	if m.TimeS > 0 {
		m.MaxLinkUtilization = float64(m.BytesSentPerRank) / (c.Link.Bandwidth * m.TimeS)
		m.AlgBWGBps = float64(c.Bytes) / m.TimeS / 1e9
		m.BusBWGBps = float64(m.AlgBWGBps * BusBandwidthFactor(c.Ranks))
	}
	alpha := c.Link.Latency.Seconds()
	switch c.Algo {
	case Ring:
		m.ClosedFormTimeS = RingAllReduceSeconds(c.Ranks, c.Bytes, alpha, c.Link.Bandwidth)
	case Star:
		m.ClosedFormTimeS = StarAllReduceSeconds(c.Ranks, c.Bytes, alpha, c.Link.Bandwidth)
	}
	if c.Nodes > 1 {
		m.Nodes, m.Inter = c.Nodes, c.Inter.ID
		ai, bi := c.Inter.Latency.Seconds(), c.Inter.Bandwidth
		S, n, k := float64(c.Bytes), float64(c.Ranks), float64(c.Ranks/c.Nodes)
		switch c.Algo {
		case Ring:
			// Every round waiting for its slowest hop, the one between
			// nodes: an upper bound (chunks that stay in a node in a round
			// run ahead; the engine is a few percent faster).
			m.ClosedFormTimeS = 2 * (n - 1) * (ai + S/(n*bi))
		case Star:
			// The root's port takes the k−1 vectors of its node over Link
			// and the n−k others over Inter, then sends them back.
			m.ClosedFormTimeS = 2*ai + 2*((k-1)*S/c.Link.Bandwidth+(n-k)*S/bi)
		}
	}
	return m
}
