package hw

import (
	"strings"
	"testing"

	"github.com/gpuscope/gpuscope/engine/sim"
)

func TestLinkCatalog(t *testing.T) {
	tests := []struct {
		id      string
		bw      float64
		latency sim.Time
	}{
		// NVLink 4: 900 GB/s two-way per H100 → 450 GB/s each way.
		{"nvlink4", 450e9, sim.Microsecond},
		// NDR: 400 Gb/s ÷ 8 = 50 GB/s.
		{"ib-ndr", 400e9 / 8, 5 * sim.Microsecond},
		// NVLink 5: 18 links × 50 GB/s = 900 GB/s each way, 1.8 TB/s two-way.
		{"nvlink5", 18 * 50e9, sim.Microsecond},
		// XDR: 800 Gb/s ÷ 8 = 100 GB/s each way.
		{"ib-xdr", 800e9 / 8, 5 * sim.Microsecond},
		// A800: 8 NVLink 3 links of 50 GB/s two-way = 400 two-way, 200
		// each way.
		{"nvlink3-a800", 8 * 50e9 / 2, sim.Microsecond},
	}
	for _, tt := range tests {
		l, ok := LinkByID(tt.id)
		if !ok {
			t.Fatalf("LinkByID(%q) not found", tt.id)
		}
		if l.Bandwidth != tt.bw || l.Latency != tt.latency {
			t.Errorf("LinkByID(%q) = %v B/s, %v; want %v B/s, %v", tt.id, l.Bandwidth, l.Latency, tt.bw, tt.latency)
		}
		if l.Source == "" {
			t.Errorf("LinkByID(%q) has no source", tt.id)
		}
	}
	// The seed's "~18× slower" between NVLink and InfiniBand: 900/50 = 18
	// counting NVLink both ways; 9× each way.
	nv, _ := LinkByID("nvlink4")
	ib, _ := LinkByID("ib-ndr")
	if got := nv.Bandwidth / ib.Bandwidth; got != 9 {
		t.Errorf("NVLink4/NDR per-direction ratio = %v, want 9", got)
	}
	// Every NVLink's Source names both: the two-way figure NVIDIA prints
	// and the each-way one the catalog stores.
	for _, l := range links {
		if strings.HasPrefix(l.ID, "nvlink") && (!strings.Contains(l.Source, "two-way") || !strings.Contains(l.Source, "each way")) {
			t.Errorf("%s: source %q does not say two-way and each way", l.ID, l.Source)
		}
	}
	if _, ok := LinkByID("nope"); ok {
		t.Error("LinkByID(nope) found something")
	}
}

// The H800 is the H100 but for NVLink: the same peaks, memory and SMs,
// 200 GB/s each way (400 GB/s two-way) — 160 GB/s achieved, as
// DeepSeek measured.
func TestH800(t *testing.T) {
	h8, ok := GPUByID("h800")
	h1, _ := GPUByID("h100")
	if !ok {
		t.Fatal("no h800")
	}
	if h8.SMs != h1.SMs || h8.HBMBytes != h1.HBMBytes || h8.HBMBandwidth != h1.HBMBandwidth || h8.Peak[BF16] != h1.Peak[BF16] || h8.Peak[FP8] != h1.Peak[FP8] {
		t.Errorf("H800 %+v differs from the H100 beyond NVLink", h8)
	}
	l, ok := LinkByID(h8.Link)
	if !ok || l.Bandwidth != 200e9 || l.Bandwidth*l.Efficiency != 160e9 {
		t.Errorf("H800's link %+v, want 200 GB/s each way, 160 GB/s achieved", l)
	}
}

// The A800 is the A100 80GB but for NVLink: 200 GB/s each way (400 GB/s
// two-way), two thirds of NVLink 3's 300.
func TestA800(t *testing.T) {
	a8, ok := GPUByID("a800")
	a1, _ := GPUByID("a100-80gb")
	if !ok {
		t.Fatal("no a800")
	}
	if a8.SMs != a1.SMs || a8.HBMBytes != a1.HBMBytes || a8.HBMBandwidth != a1.HBMBandwidth || a8.Peak[BF16] != a1.Peak[BF16] {
		t.Errorf("A800 %+v differs from the A100 80GB beyond NVLink", a8)
	}
	l, ok := LinkByID(a8.Link)
	nv3, _ := LinkByID(a1.Link)
	if !ok || l.Bandwidth != 200e9 || 3*l.Bandwidth != 2*nv3.Bandwidth || l.Latency != nv3.Latency || l.Efficiency != nv3.Efficiency {
		t.Errorf("A800's link %+v, want 200 GB/s each way, NVLink 3's latency and efficiency", l)
	}
}
