package kernel

import (
	"github.com/gpuscope/gpuscope/engine/errs"
	"github.com/gpuscope/gpuscope/engine/hw"
)

// Roofline is one GPU's ceiling for one dtype.
type Roofline struct {
	GPU   hw.GPU
	Dtype hw.Dtype
	Peak  float64 // FLOP/s
	BW    float64 // HBM bytes/s
}

// NewRoofline returns the roofline of g for d, or an error when g has no
// unit for d (A100 has no FP8), naming the dtypes g has.
func NewRoofline(g hw.GPU, d hw.Dtype) (Roofline, error) {
	peak, ok := g.PeakFLOPS(d)
	if !ok {
		return Roofline{}, errs.F("dtype_allowed", "dtype: %s has no %s unit; allowed %s", "gpu dtype_up allowed", g.Name, d, g.DtypeList())
	}
	return Roofline{GPU: g, Dtype: d, Peak: peak, BW: g.HBMBandwidth}, nil
}

// Ridge is the intensity, FLOP per byte, at which memory and compute take
// the same time: peak ÷ bandwidth.
func (r Roofline) Ridge() float64 { return r.Peak / r.BW }

// Attainable is the most FLOP/s a kernel of this intensity can reach.
func (r Roofline) Attainable(intensity float64) float64 {
	return min(r.Peak, intensity*r.BW)
}

// Bound says what limits a kernel of this intensity: "memory" below the
// ridge, "compute" at or above it.
func (r Roofline) Bound(intensity float64) string {
	if intensity < r.Ridge() {
		return "memory"
	}
	return "compute"
}

// RooflineMetrics are the numbers of gpuscope roofline (the page uses the
// same names).
type RooflineMetrics struct {
	GPU              string  `json:"gpu"`
	Dtype            string  `json:"dtype"`
	PeakTFLOPS       float64 `json:"peak_tflops"`
	HBMTBps          float64 `json:"hbm_TBps"`
	RidgeFLOPPerByte float64 `json:"ridge_flop_per_byte"`
}

// Metrics reports the roofline in TFLOP/s and TB/s.
func (r Roofline) Metrics() RooflineMetrics {
	return RooflineMetrics{
		GPU:              r.GPU.ID,
		Dtype:            string(r.Dtype),
		PeakTFLOPS:       r.Peak / 1e12,
		HBMTBps:          r.BW / 1e12,
		RidgeFLOPPerByte: r.Ridge(),
	}
}
