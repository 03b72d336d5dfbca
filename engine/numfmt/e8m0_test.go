package numfmt

import (
	"math"
	"testing"
)

// E8M0 (OCP MX 1.0 §5.4.1) and the MX scale of §6.3.
func TestE8M0AndMXScale(t *testing.T) {
	if v := E8M0(127).Value(); v != 1 {
		t.Errorf("E8M0(127) = %g, want 1", v)
	}
	if v := E8M0(0).Value(); v != math.Ldexp(1, -127) {
		t.Errorf("E8M0(0) = %g, want 2^-127", v)
	}
	if v := E8M0(254).Value(); v != math.Ldexp(1, 127) {
		t.Errorf("E8M0(254) = %g, want 2^127", v)
	}
	if !math.IsNaN(E8M0NaN.Value()) {
		t.Errorf("E8M0 0xFF is not NaN")
	}
	if E8M0FromExp(-500) != 0 || E8M0FromExp(500) != 254 {
		t.Errorf("E8M0FromExp does not clamp: %d, %d", E8M0FromExp(-500), E8M0FromExp(500))
	}
	for _, tt := range []struct {
		amax float64
		elem Format
		want float64
	}{
		{100, FP8E4M3, 0.25}, // ⌊log2 100⌋ = 6; 2^(6−8)
		{448, FP8E4M3, 1},    // 448 = 1.75·2^8
		{512, FP8E4M3, 2},    // 512 = 2^9: 256 stored
		{127, FP8E4M3, 0.25}, // 127·4 = 508 > 448: saturates
		{100, FP4E2M1, 16},   // 2^(6−2); 100/16 = 6.25 > 6: saturates
		{6, FP4E2M1, 1},
		{0, FP8E4M3, math.Ldexp(1, -127)},
	} {
		if got := MXScale(tt.amax, tt.elem).Value(); got != tt.want {
			t.Errorf("MXScale(%g, %s) = %g, want %g", tt.amax, tt.elem.Name, got, tt.want)
		}
	}
}
