package browsertest

import (
	"image/color"
	"testing"
)

// 3d-parallel's last step, scale (issue 37): MegaScale's 175B from 64 to
// 16,384 GPUs. At the step's end the page draws the engine's MFU curve,
// Table 2's published points as squares and a bar of the step's time by
// part under each GPU count that runs — in English on a desktop, in
// Chinese on a 390×844 phone and in presentation mode (out/screens/
// scale-*).
func TestScaleOutStep(t *testing.T) {
	for _, v := range []struct {
		name, frag string
		w, h       int64
	}{{"en", "&lang=en", 1280, 800}, {"zh-phone", "&lang=zh", 390, 844}, {"present", "&lang=en&present=1", 1280, 800}} {
		ctx := openSized(t, "index.html#scenario=3d-parallel&step=6"+v.frag, v.w, v.h)
		waitReady(ctx)
		var st planState
		evalJSON(ctx, "window.gpuscope.state()", &st)
		if st.Steps != 6 || st.Step != 6 {
			t.Fatalf("%s: step %d of %d, want the sixth of six", v.name, st.Step, st.Steps)
		}
		command(ctx, `{type: "goto", time_s: 1000}`)
		settle(ctx)
		img := decodePNG(t, screenshot(ctx, "scale-"+v.name))
		stage := elementRect(ctx, "#stage").image()
		count := func(cs ...color.RGBA) int {
			n := 0
			for _, c := range cs {
				n += countPixels(img, stage, c, 12)
			}
			return n
		}
		// The published squares and the legend's swatch, in the hot
		// colour of the dark, light or projector theme.
		hot := count(color.RGBA{0xf0, 0x72, 0x1e, 255}, color.RGBA{0xd5, 0x5e, 0x00, 255}, color.RGBA{0xc8, 0x3c, 0x00, 255})
		// The compute parts of the seven running plans' bars.
		green := count(color.RGBA{0x4c, 0xaf, 0x50, 255})
		// The engine's curve.
		curve := count(color.RGBA{0x56, 0xb4, 0xe9, 255}, color.RGBA{0x00, 0x72, 0xb2, 255}, color.RGBA{0x00, 0x5a, 0xb5, 255})
		t.Logf("%s: %d published-colour, %d compute, %d curve pixels", v.name, hot, green, curve)
		if hot < 150 {
			t.Errorf("%s: %d pixels of the published squares' colour, want the squares (150 or more)", v.name, hot)
		}
		if green < 3000 {
			t.Errorf("%s: %d pixels of compute, want seven bars (3,000 or more)", v.name, green)
		}
		if curve < 300 {
			t.Errorf("%s: %d pixels of the engine's curve, want 300 or more", v.name, curve)
		}
	}
}
