package hw

import (
	"testing"

	"github.com/gpuscope/gpuscope/engine/sim"
)

func TestLinkCatalog(t *testing.T) {
	tests := []struct {
		id      string
		bw      float64
		latency sim.Time
	}{
		// NVLink 4: 900 GB/s bidirectional per H100 → 450 GB/s each way.
		{"nvlink4", 450e9, sim.Microsecond},
		// NDR: 400 Gb/s ÷ 8 = 50 GB/s.
		{"ib-ndr", 400e9 / 8, 5 * sim.Microsecond},
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
	if _, ok := LinkByID("nope"); ok {
		t.Error("LinkByID(nope) found something")
	}
}
