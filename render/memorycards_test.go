package render

import (
	"github.com/gpuscope/gpuscope/render/draw"
	"math"
	"testing"

	"github.com/gpuscope/gpuscope/internal/golden"
)

func cardsView() CardsView {
	return CardsView{Width: 800, Height: 500, Stage: draw.Rect{X: 0, Y: 0, W: 800, H: 500}, Scale: 1, Theme: draw.Dark, Words: english,
		Headline: "100B into 80 GB GPUs", Card: 80e9, Slots: 8, Progress: 1,
		Rows: []CardsRow{
			{Label: "weights", Segments: []MemorySegment{{"weights", 200e9}}},
			{Label: "+ Adam", Segments: []MemorySegment{{"weights", 200e9}, {"optimizer", 400e9}}, Pour: 1},
			{Label: "the seed", Bytes: 400e9, High: 600e9, Estimate: "estimate"},
		}}
}

// Bytes fill cards of Card bytes bottom up, card after card, on one
// scale for every row; each row says how many cards it takes, an
// estimate its range; a hidden row keeps its cards empty under a "?";
// pouring fills what has arrived.
func TestCardsPicture(t *testing.T) {
	v := cardsView()
	l := AppendCards(draw.List{}, v)
	golden.Check(t, "cards.golden", l.String())
	tx := texts(l)
	for _, s := range []string{"= 3 GPUs", "= 8 GPUs", "= 5–8 GPUs", "100B into 80 GB GPUs"} {
		if _, ok := tx[s]; !ok {
			t.Errorf("no label %q", s)
		}
	}
	// The first row: two full cards of weights and half of a third.
	var fills []draw.Item
	outlines := 0
	for _, it := range l.Items {
		if it.Kind == draw.FillRect && it.Color == memoryColour("weights", draw.Dark) && it.W > 30 {
			fills = append(fills, it)
		}
		if it.Kind == draw.StrokeRect && it.Color == draw.Dark.Link {
			outlines++
		}
	}
	if outlines != 3+8+8 {
		t.Errorf("%d card outlines, want the cards each row needs (3, 8, 8)", outlines)
	}
	if len(fills) < 3 {
		t.Fatalf("weights fills: %v", fills)
	}
	full, half := fills[0], fills[2]
	if math.Abs(float64(half.H-full.H/2)) > 0.5 || math.Abs(float64(half.Y+half.H-(full.Y+full.H))) > 0.01 {
		t.Errorf("the third card holds %.1f px from the bottom, want half of %.1f", half.H, full.H)
	}
	// Pouring: halfway, the Adam row's optimizer bytes are half in.
	v.Progress = 0.5
	if _, ok := texts(AppendCards(draw.List{}, v))["= 5 GPUs"]; !ok {
		t.Error("halfway through the pour, the Adam row should count 5 GPUs (200 + 200 GB)")
	}
	// Hidden: no count, no fill, a question mark.
	v = cardsView()
	v.Rows[2].Hidden = true
	tx = texts(AppendCards(draw.List{}, v))
	if _, ok := tx["?"]; !ok {
		t.Error("a hidden row shows no ?")
	}
	if _, ok := tx["= 5–8 GPUs"]; ok {
		t.Error("a hidden row gives its answer")
	}
	for _, it := range AppendCards(draw.List{}, v).Items {
		if it.Kind == draw.FillRect && it.Color == draw.Dark.Link {
			t.Fatalf("a hidden estimate is filled: %+v", it)
		}
	}
}
