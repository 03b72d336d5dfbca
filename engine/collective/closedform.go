package collective

// Closed-form alpha-beta costs. S is the message size in bytes, n the number
// of ranks, alpha the per-message latency in seconds, bw the link bandwidth
// in bytes per second per direction.

// RingAllReduceSeconds is the ring all-reduce time: 2(n−1) rounds, each
// moving one chunk of S/n bytes one hop: 2(n−1)·(α + S/(n·B)).
// (nccl-tests PERFORMANCE.md; Patarasuk & Yuan 2009.)
func RingAllReduceSeconds(n int, s int64, alpha, bw float64) float64 {
	if n < 2 {
		return 0
	}
	rounds := float64(2 * (n - 1))
	return rounds * (alpha + float64(s)/float64(float64(n)*bw))
}

// StarAllReduceSeconds is the naive star (parameter server) all-reduce: the
// root receives the n−1 other vectors through its one port, sums, then sends
// the result n−1 times: 2α + 2(n−1)·S/B.
func StarAllReduceSeconds(n int, s int64, alpha, bw float64) float64 {
	if n < 2 {
		return 0
	}
	return float64(2*alpha) + float64(2*float64(n-1)*float64(s)/bw)
}

// RingBytesSentPerRank is what each rank sends in a ring all-reduce:
// 2(n−1)/n · S, i.e. almost 2S whatever the number of ranks.
func RingBytesSentPerRank(n int, s int64) float64 {
	if n < 2 {
		return 0
	}
	return float64(2*(n-1)) / float64(n) * float64(s)
}

// StarRootBytesSent is what the root of a star sends: (n−1)·S.
func StarRootBytesSent(n int, s int64) float64 {
	return float64(n-1) * float64(s)
}

// BusBandwidthFactor converts algorithm bandwidth (S / time) to bus
// bandwidth for an all-reduce, as nccl-tests does: 2(n−1)/n. Bus bandwidth
// is comparable with the link's own speed whatever n is.
func BusBandwidthFactor(n int) float64 {
	if n < 1 {
		return 0
	}
	return float64(2*(n-1)) / float64(n)
}
