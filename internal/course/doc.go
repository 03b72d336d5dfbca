// Package course builds the static bilingual course site from its source
// files (site/course: FORMAT.md there is the specification of the format):
// a page per lesson per language with the simulator embedded beside the
// prose, a home page, a glossary and a search page per language, the
// search index, the course's stylesheet and scripts, and the service
// worker that keeps the visited pages readable offline.
//
// Build(srcDir, distDir) writes, under distDir:
//
//	course/{en,zh}/index.html, <lesson-id>.html, glossary.html,
//	               search.html, search.json
//	course/course.css, course/course.js, course/search.js
//	sw.js                       (at the root: its scope is the whole site)
//
// Every link in the pages is relative, so the built site works from any
// folder of any static host. The numbers tables and the teacher notes'
// questions are computed by the lessons' engines (package scenarios) when
// the site is built. Every problem with the sources (an unknown directive,
// a step out of range, an unknown knob, a missing translation, a broken
// glossary entry or link) is an error naming the file and line.
//
// The package is native Go only: it runs at build time (gpuscope site) and
// never goes into the WebAssembly simulator, so its Markdown library
// (github.com/yuin/goldmark, a CommonMark implementation) adds nothing to
// main.wasm.
package course
