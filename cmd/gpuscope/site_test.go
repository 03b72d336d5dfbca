package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// siteDist is a dist folder with what `gpuscope site` reads from a build:
// the simulator's page, from which the share pages are made.
func siteDist(t *testing.T) string {
	t.Helper()
	dist := t.TempDir()
	page, err := os.ReadFile(filepath.Join("..", "..", "site", "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dist, "index.html"), page, 0o644); err != nil {
		t.Fatal(err)
	}
	return dist
}

// `gpuscope site --course DIR` builds the course after the share pages,
// and names every problem in the sources.
func TestSiteCourse(t *testing.T) {
	var out, errs bytes.Buffer
	if rc := runSite([]string{"--course"}, &out, &errs); rc != 2 || !strings.Contains(errs.String(), "--course DIR") {
		t.Errorf("site --course (no value): rc %d, stderr %q; want 2 and the usage", rc, errs.String())
	}

	// The course package's fixture has three lessons, not the curriculum.
	out.Reset()
	errs.Reset()
	fixture := filepath.Join("..", "..", "internal", "course", "testdata", "course")
	if rc := runSite([]string{"--dist", siteDist(t), "--course", fixture}, &out, &errs); rc != 1 ||
		!strings.Contains(errs.String(), filepath.Join(fixture, "en", "memory-wall.md")+": missing") {
		t.Errorf("site --course (three lessons): rc %d, stderr %q; want 1 and the missing pages named", rc, errs.String())
	}

	src := filepath.Join("..", "..", "site", "course")
	if md, _ := filepath.Glob(filepath.Join(src, "en", "*.md")); len(md) == 0 {
		t.Skip("site/course has no lesson pages yet")
	}
	out.Reset()
	errs.Reset()
	dist := siteDist(t)
	if rc := runSite([]string{"--dist", dist, "--course", src}, &out, &errs); rc != 0 {
		t.Fatalf("site --course site/course: rc %d, stderr:\n%s", rc, errs.String())
	}
	for _, f := range []string{"course/en/index.html", "course/zh/ring-allreduce.html", "course/en/search.json", "course/course.js", "sw.js", "ring-allreduce.html"} {
		if _, err := os.Stat(filepath.Join(dist, f)); err != nil {
			t.Errorf("site: %s not written: %v", f, err)
		}
	}
	if !strings.Contains(out.String(), "course") {
		t.Errorf("site: stdout %q does not mention the course", out.String())
	}
}
