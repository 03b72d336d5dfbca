package moe

import (
	"hash/fnv"
	"math"
	"strings"
	"testing"

	"github.com/gpuscope/gpuscope/engine/hw"
)

func links(t *testing.T) (hw.Link, hw.Link) {
	t.Helper()
	nv, ok1 := hw.LinkByID("nvlink4")
	ib, ok2 := hw.LinkByID("ib-ndr")
	if !ok1 || !ok2 {
		t.Fatal("links nvlink4, ib-ndr missing")
	}
	return nv, ib
}

func mixtral(t *testing.T) Config {
	nv, ib := links(t)
	return Config{Experts: 8, TopK: 2, Tokens: 4096, Hidden: 4096, EP: 8, GPUsPerNode: 8, Intra: nv, Inter: ib, Seed: 1}
}

// Every token goes to TopK different experts; the loads add up to the
// copies; experts take copies in token order up to their capacity.
func TestRoutesAddUp(t *testing.T) {
	for _, cf := range []float64{0, 1, 1.25, 2} {
		for _, skew := range []float64{0, 1, 2} {
			c := mixtral(t)
			c.CapacityFactor, c.Skew = cf, skew
			r, err := Route(c)
			if err != nil {
				t.Fatal(err)
			}
			load, filled := make([]int, c.Experts), make([]int, c.Experts)
			dropped, padded := 0, 0
			for tok := range c.Tokens * c.EP {
				seen := map[int32]bool{}
				for _, e := range r.Routes[tok*c.TopK : (tok+1)*c.TopK] {
					if seen[e] || e < 0 || int(e) >= c.Experts {
						t.Fatalf("cf %g skew %g: token %d routed to %v", cf, skew, tok, r.Routes[tok*c.TopK:(tok+1)*c.TopK])
					}
					seen[e] = true
				}
			}
			// Each GPU's buffers, one an expert, fill in its tokens' order.
			for src := range c.EP {
				clear(filled)
				for i := src * c.Tokens * c.TopK; i < (src+1)*c.Tokens*c.TopK; i++ {
					e := r.Routes[i]
					load[e]++
					filled[e]++
					if kept := r.Capacity == 0 || filled[e] <= r.Capacity; kept != r.Kept[i] {
						t.Fatalf("copy %d to expert %d (GPU %d's %d-th): kept %v", i, e, src, filled[e], r.Kept[i])
					}
					if !r.Kept[i] {
						dropped++
					}
				}
				if r.Capacity > 0 {
					for _, n := range filled {
						padded += max(0, r.Capacity-n)
					}
				}
			}
			for e, n := range load {
				if n != r.Load[e] {
					t.Fatalf("expert %d: load %d, counted %d", e, r.Load[e], n)
				}
			}
			if dropped != r.Dropped || padded != r.Padded {
				t.Errorf("cf %g skew %g: dropped %d padded %d, counted %d and %d", cf, skew, r.Dropped, r.Padded, dropped, padded)
			}
			// Capacity ⌈cf·T·k/E⌉: 1.25 × 4096 × 2 / 8 = 1280.
			if cf == 1.25 && r.Capacity != 1280 {
				t.Errorf("capacity %d, by hand 1280", r.Capacity)
			}
			if cf == 0 && (r.Dropped != 0 || r.Padded != 0 || r.Capacity != 0) {
				t.Errorf("no capacity: dropped %d padded %d", r.Dropped, r.Padded)
			}
		}
	}
}

// A balanced router spreads the copies evenly (the busiest expert
// within a few standard deviations of the mean, 8,192 copies each); a
// skewed one's first choices follow the popularity, the favourite
// 2^Skew times the runner-up's.
func TestRouterLoad(t *testing.T) {
	c := mixtral(t)
	r, _ := Route(c)
	m := r.Metrics()
	if m.MeanLoad != 8192 || m.Imbalance > 1.05 || m.Imbalance < 1 {
		t.Errorf("balanced: mean %g, imbalance %.3f", m.MeanLoad, m.Imbalance)
	}
	c.Skew, c.TopK, c.Tokens = 1, 1, 40000
	r, _ = Route(c)
	first, second := -1, -1
	for e, p := range r.Popularity {
		if first < 0 || p > r.Popularity[first] {
			first, second = e, first
		} else if second < 0 || p > r.Popularity[second] {
			second = e
		}
	}
	if got := r.Popularity[first] / r.Popularity[second]; math.Abs(got-2) > 1e-9 {
		t.Errorf("popularity ratio %g, want 2", got)
	}
	for e, p := range r.Popularity {
		n := float64(c.Tokens * c.EP)
		share := float64(r.Load[e]) / n
		if sd := math.Sqrt(p * (1 - p) / n); math.Abs(share-p) > 5*sd {
			t.Errorf("expert %d: first choice of %.4f of the tokens, popularity %.4f (±%.4f)", e, share, p, sd)
		}
	}
}

// The dispatch with a capacity, by hand: every GPU sends each expert its
// buffer of ⌈1.25 × 4096 × 2 ÷ 8⌉ = 1,280 slots, 4096 × 2 bytes each:
// to the seven other GPUs' experts in its node 7 × 1280 × 8192 = 73.4 MB,
// at NVLink 4's 450 GB/s × 0.82, plus 1 µs. Over two nodes of four, four
// of the seven buffers cross InfiniBand.
func TestDispatchByHand(t *testing.T) {
	c := mixtral(t)
	c.CapacityFactor = 1.25
	r, _ := Route(c)
	want := 7 * 1280.0 * 8192
	if math.Abs(r.SendIntra[3]-want) > 1e-6 || r.SendInter[3] != 0 {
		t.Errorf("GPU 3 sends %g in its node, %g out; by hand %g, 0", r.SendIntra[3], r.SendInter[3], want)
	}
	if wantS := 1e-6 + want/(450e9*0.82); math.Abs(r.DispatchS-wantS) > 1e-12 {
		t.Errorf("dispatch %g s, by hand %g", r.DispatchS, wantS)
	}
	c.GPUsPerNode = 4
	r, _ = Route(c)
	m := r.Metrics()
	if math.Abs(r.SendInter[0]-4*1280.0*8192) > 1e-6 || math.Abs(m.InterNodeShare-4.0/7) > 1e-12 {
		t.Errorf("two nodes: %g bytes out, share %g; by hand %g, 4/7", r.SendInter[0], m.InterNodeShare, 4*1280.0*8192)
	}
	ib := c.Inter
	if wantS := ib.Latency.Seconds() + 4*1280.0*8192/(ib.Bandwidth*ib.Efficiency); math.Abs(r.InterS-wantS) > 1e-12 || r.DispatchS != r.InterS {
		t.Errorf("inter-node part %g s, by hand %g (dispatch %g)", r.InterS, wantS, r.DispatchS)
	}
}

// Without a capacity the bytes are the copies themselves: the busiest
// GPU, the one whose expert is most popular, receives the most.
func TestDroplessHotExpert(t *testing.T) {
	c := mixtral(t)
	c.Skew = 1.5
	r, _ := Route(c)
	hot := 0
	for e, n := range r.Load {
		if n > r.Load[hot] {
			hot = e
		}
	}
	g := r.GPUOf(hot)
	for other := range c.EP {
		if r.RecvIntra[other] > r.RecvIntra[g] {
			t.Errorf("GPU %d receives %g, more than the hot expert's GPU %d (%g)", other, r.RecvIntra[other], g, r.RecvIntra[g])
		}
	}
	// Its own tokens' copies stay: it receives its load less those.
	own := 0
	for i, e := range r.Routes {
		if int(e) == hot && r.SourceOf(i/c.TopK) == g {
			own++
		}
	}
	if want := float64(r.Load[hot]-own) * 8192; math.Abs(r.RecvIntra[g]-want) > 1e-6 {
		t.Errorf("hot GPU receives %g, by hand %g", r.RecvIntra[g], want)
	}
	// The dispatch is the hot GPU's part on NVLink; every other GPU's is
	// shorter (it waits), and none leaves the node.
	for other := range c.EP {
		in, out := r.LinkTimes(other)
		nv := c.Intra
		want := nv.Latency.Seconds() + max(r.SendIntra[other], r.RecvIntra[other])/(nv.Bandwidth*nv.Efficiency)
		if math.Abs(in-want) > 1e-15 || out != 0 || (other == g) != (in == r.DispatchS) {
			t.Errorf("GPU %d: parts %g, %g s; by hand %g, 0 (dispatch %g, hot GPU %d)", other, in, out, want, r.DispatchS, g)
		}
	}
	if a, b := r.LinkTimes(c.EP); a != 0 || b != 0 {
		t.Errorf("GPU %d of %d: parts %g, %g", c.EP, c.EP, a, b)
	}
}

// The same seed routes the same batch, on every platform: a checksum of
// DeepSeek-V3's routes (also run as WebAssembly under Node).
func TestRoutesDeterministic(t *testing.T) {
	nv, ib := links(t)
	c := Config{Experts: 256, TopK: 8, Tokens: 4096, Hidden: 7168, Skew: 0.8, CapacityFactor: 1.25, EP: 64, GPUsPerNode: 8, Intra: nv, Inter: ib, Seed: 7}
	a, _ := Route(c)
	b, _ := Route(c)
	h := fnv.New64a()
	for i, e := range a.Routes {
		if e != b.Routes[i] {
			t.Fatal("two runs of one seed differ")
		}
		h.Write([]byte{byte(e), byte(e >> 8)})
	}
	if got := h.Sum64(); got != routesChecksum {
		t.Errorf("routes checksum %#x, want %#x", got, routesChecksum)
	}
	c.Seed = 8
	d, _ := Route(c)
	if d.Routes[0] == a.Routes[0] && d.Routes[1] == a.Routes[1] && d.Routes[2] == a.Routes[2] {
		t.Error("another seed routes the same")
	}
}

const routesChecksum uint64 = 0x67a60e842048e2a5

func TestValidateNamesTheField(t *testing.T) {
	for _, tc := range []struct {
		edit func(*Config)
		want string
	}{
		{func(c *Config) { c.EP = 3 }, "ep: 3; allowed a divisor of the experts (8)"},
		{func(c *Config) { c.TopK = 9 }, "top-k: 9; allowed 1–8"},
		{func(c *Config) { c.CapacityFactor = 0.5 }, "capacity-factor: 0.5; allowed 0 (no capacity) or 1–16"},
		{func(c *Config) { c.Skew = math.NaN() }, "skew: NaN"},
		{func(c *Config) { c.Tokens = 0 }, "tokens: 0"},
		{func(c *Config) { c.Experts = 1 }, "experts: 1"},
	} {
		c := mixtral(t)
		tc.edit(&c)
		if _, err := Route(c); err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want %q", c, err, tc.want)
		}
	}
}

// BenchmarkRouteDeepSeek routes DeepSeek-V3's layer on its EP64 group, a
// 4,096-token micro-batch a GPU: 2.1M token copies (make bench).
func BenchmarkRouteDeepSeek(b *testing.B) {
	nv, _ := hw.LinkByID("nvlink4-h800")
	ib, _ := hw.LinkByID("ib-ndr")
	c := Config{Experts: 256, TopK: 8, Tokens: 4096, Hidden: 7168, Skew: 0.8, EP: 64, GPUsPerNode: 8, Intra: nv, Inter: ib, Seed: 1}
	for b.Loop() {
		if _, err := Route(c); err != nil {
			b.Fatal(err)
		}
	}
}
