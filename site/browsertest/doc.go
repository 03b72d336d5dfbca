// Package browsertest holds the real-browser tests of the built site: it
// serves a site directory with site/server on a loopback httptest server and
// drives Debian's headless Chromium (SwiftShader WebGL) through chromedp.
//
// The tests run only when GPUSCOPE_SITE_DIR names a built site (make test
// sets it to site/dist after make build), so a plain `go test ./...` stays
// fast and needs no browser. GPUSCOPE_CHROMIUM overrides the browser binary.
//
// Screenshots a test saves go to out/screens/ at the repository root; a
// failing test also leaves one in testdata/failed/screens/. Both are ignored
// by git.
package browsertest
