package course

import (
	"errors"
	"fmt"

	"github.com/gpuscope/gpuscope/scenarios"
)

// HandoutPoster is the file, under the site's posters/, of the figure a
// lesson's printed handout shows: the lesson at its handout step
// (HandoutSteps), question answered, in the light theme — drawn by
// cmd/posters like the embeds' posters, so that it shows the moment the
// handout's tables give numbers for.
func HandoutPoster(id, lang string) string { return id + "-handout-" + lang + ".png" }

// HandoutSteps reads the lesson pages under srcDir and returns, for each
// lesson, the step its printed handout is about: that of the page's first
// numbers block (the handout's first table), or 1 when the page has
// none. The English and Chinese pages of a lesson must agree: they print
// the same figure.
func HandoutSteps(srcDir string) (map[string]int, error) {
	b := newBuilder(srcDir, "", scenarios.All())
	docs := b.readDocs()
	if len(b.errs) > 0 {
		return nil, errors.Join(b.errs...)
	}
	steps := b.handoutSteps(docs)
	if len(b.errs) > 0 {
		return nil, errors.Join(b.errs...)
	}
	return steps, nil
}

// handoutSteps is HandoutSteps over pages already read; a disagreement
// between the languages is a build error naming both files.
func (b *builder) handoutSteps(docs map[string]map[string]*doc) map[string]int {
	steps := map[string]int{}
	for _, id := range b.ids {
		first := ""
		for _, lang := range langs {
			d := docs[lang][id]
			if d == nil {
				continue
			}
			n := firstNumbersStep(d, b.byID[id])
			if first == "" {
				first, steps[id] = d.file, n
			} else if steps[id] != n {
				b.fail(&Error{File: d.file, Msg: fmt.Sprintf("the first ::: numbers block is at step %d, in %s at step %d: the handouts of both languages print the figure of one step, so they must agree",
					n, first, steps[id])})
			}
		}
	}
	return steps
}

// firstNumbersStep is the step of d's first numbers block, or 1.
func firstNumbersStep(d *doc, s *scenarios.Scenario) int {
	for i := range d.blocks {
		if bl := &d.blocks[i]; bl.kind == blockNumbers {
			if n, err := stepArg(bl, len(s.Steps)); err == nil {
				return n
			}
		}
	}
	return 1
}
