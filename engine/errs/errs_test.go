package errs

import (
	"errors"
	"fmt"
	"math"
	"testing"
)

// The helpers' English is what fmt wrote before them.
func TestHelpersText(t *testing.T) {
	for _, c := range []struct {
		e    *Error
		want string
	}{
		{Range("layers", 0, 1, 1000, ""), fmt.Sprintf("layers: %d; allowed 1–1000", 0)},
		{Range("top-k", -3, 1, 8, " (the experts)"), fmt.Sprintf("top-k: %d; allowed 1–%d (the experts)", -3, 8)},
		{RangeG("bytes", 2e18, 0, 1e18, ""), fmt.Sprintf("bytes: %g; allowed 0–%g", 2e18, 1e18)},
		{RangeG("skew", math.NaN(), 0, 2, ""), fmt.Sprintf("skew: %g; allowed 0–2", math.NaN())},
		{RangeG("busy", math.Inf(1), 0, 1, ""), fmt.Sprintf("busy: %g; allowed 0–1", math.Inf(1))},
		{Positive("ffn", 0), fmt.Sprintf("ffn: %d; must be positive", 0)},
	} {
		if c.e.Error() != c.want {
			t.Errorf("%q, want %q", c.e.Error(), c.want)
		}
	}
	if got, want := Quoted("a\"b\n"), fmt.Sprintf("%q", "a\"b\n"); `"`+got+`"` != want {
		t.Errorf("Quoted = %s, want %s without quotes", got, want)
	}
}

func TestAsThroughWrapping(t *testing.T) {
	err := fmt.Errorf("context: %w", New("nodes", "nodes: 8 is not allowed", "nodes", "8"))
	e, ok := errors.AsType[*Error](err)
	if !ok || e.Code != "nodes" || e.Arg("nodes") != "8" || e.Arg("max") != "" {
		t.Errorf("errors.As through %%w: %v, %v", e, ok)
	}
}
