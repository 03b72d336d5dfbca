//go:build i18nfetch

package i18n

import "testing"

// The browser build embeds English only (make test runs this with
// -tags i18nfetch; i18n_test.go, which checks the embedded Chinese
// catalogue, is left out of that build).
func TestFetchBuildEmbedsEnglishOnly(t *testing.T) {
	if _, err := files.ReadFile("zh.txt"); err == nil {
		t.Error("zh.txt is embedded in the i18nfetch build")
	}
	if !Loaded("en") || len(loadErrs) > 0 {
		t.Errorf("English not loaded (errors: %v)", loadErrs)
	}
	if got := T("en", "ui.play"); got != "Play" {
		t.Errorf("T(en, ui.play) = %q", got)
	}
}
