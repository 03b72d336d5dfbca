package scene

import (
	"strings"
	"testing"

	"github.com/gpuscope/gpuscope/render"
	"github.com/gpuscope/gpuscope/scenarios"
)

// A Blackwell picked in the roofline lesson's last step is drawn with the
// three other GPUs, its roof the current one, keyed in the legend, its
// ridge marked (a B200 in BF16: 2.25 PFLOP/s ÷ 8 TB/s = 281); and the
// picture keeps the canvas's rules (no label over another, none off the
// stage, every colour keyed, Chinese words in Chinese) on every frame at
// the lesson's extremes: each Blackwell, every dtype, the intensity
// lowest and highest.
func TestRooflineBlackwellPicture(t *testing.T) {
	var p Picture
	var l render.List
	for _, frag := range []string{
		"gpu=b200", "gpu=gb200&dtype=fp8&intensity=100000", "gpu=gb200&dtype=fp4&intensity=300",
		"gpu=b200&dtype=fp32&intensity=0.01", "gpu=b200&dtype=tf32", "gpu=gb200&dtype=fp16&intensity=1000",
	} {
		pl, errs, err := scenarios.NewPlayerAt("scenario=roofline&step=7&" + frag)
		if err != nil || len(errs) > 0 {
			t.Fatalf("%s: %v %v", frag, err, errs)
		}
		got := ruleFailures{}
		for _, lang := range []string{"en", "zh"} {
			for _, rf := range ruleFrames {
				f := rf.frame
				f.Lang = lang
				l = p.Build(l, At(pl), f)
				checkList(got, "roofline", frag+" "+rf.name+" "+lang, l, f, rf.minText, lang)
				if frag == "gpu=b200" && rf.name == "desktop" && lang == "en" {
					s := l.String()
					for _, want := range []string{`"B200"`, `"A100 80GB"`, `"H100 SXM"`, `"H200 SXM"`, `"ridge 281"`, `"peak: 2.25 PFLOP/s"`} {
						if !strings.Contains(s, want) {
							t.Errorf("B200 pick: the picture lacks %s", want)
						}
					}
				}
			}
		}
		for _, rules := range got {
			for r, ex := range rules {
				t.Errorf("%s breaks %s: %s", frag, r, ex)
			}
		}
	}
}
