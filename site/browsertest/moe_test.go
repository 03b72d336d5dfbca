package browsertest

import (
	"strings"
	"testing"
)

// The mixture-of-experts lesson's free knobs (its steps are walked by
// TestInfraLessons): DeepSeek-V3 on EP 64, set in one command, is fine;
// Mixtral on 64 is refused, naming ep and the allowed values, and the
// lesson keeps its last good state.
func TestMixtureOfExperts(t *testing.T) {
	ctx := openDraft(t, "index.html#scenario=mixture-of-experts&step=4", viewportW, viewportH)
	waitReady(ctx)
	var st infraState
	// The last step's knobs are free: DeepSeek-V3 on 64 GPUs is fine,
	// Mixtral on 64 is not (8 experts).
	command(ctx, `{type: "set", model: "deepseek-v3", ep: 64}`) // together: EP 64 alone would refuse Mixtral's 8 experts
	settle(ctx)
	st = infraState{}
	evalJSON(ctx, "window.gpuscope.state()", &st)
	good := st.Metrics["dispatch_bytes"]
	if st.Error != nil || good == nil {
		t.Fatalf("DeepSeek-V3 on EP 64: error %v, metrics %v", st.Error, st.Metrics)
	}
	command(ctx, `{type: "set", model: "mixtral-8x7b"}`)
	settle(ctx)
	st = infraState{}
	evalJSON(ctx, "window.gpuscope.state()", &st)
	if st.Error == nil || !strings.Contains(*st.Error, "ep") || !strings.Contains(*st.Error, "1, 2, 4, 8") {
		t.Errorf("Mixtral on EP 64: error %v, want ep and its allowed values named", st.Error)
	}
	if st.Metrics["dispatch_bytes"] != good {
		t.Errorf("after the refusal the numbers changed: %v, were %v", st.Metrics["dispatch_bytes"], good)
	}
}
