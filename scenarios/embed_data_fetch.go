//go:build i18nfetch

package scenarios

// The browser build embeds no scenario file: the page fetches the bundle
// (scenarios.txt, made by make build) and hands it to LoadBundle.
var dataFS = bundleFS{}
