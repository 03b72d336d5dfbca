// Package i18n holds every string a reader of gpuscope sees, in English
// ("en") and Simplified Chinese ("zh"), and looks them up by key.
//
// # Catalogue format
//
// The catalogues are the embedded files en.txt and zh.txt, UTF-8, one entry
// per line:
//
//	key = value
//
// The key is everything before the first '=', trimmed; it is made of ASCII
// letters, digits and the characters '.', '_' and '-'. The value is the rest
// of the line, trimmed of surrounding white space. In a value, \n stands for
// a newline, \s for a space (for the rare value that must begin or end with
// one) and \\ for a backslash; any other backslash sequence is an error.
// Lines whose first non-blank character is '#' and blank lines are ignored.
//
// A value may contain placeholders {name} (name: lower-case ASCII letters,
// digits and '_'), filled by T from name/value pairs. Both languages must use
// the same set of placeholders for a key.
//
// # Builds
//
// Natively, and in any build without the i18nfetch tag, both catalogues
// are embedded. main.wasm is built with -tags i18nfetch: only English is
// embedded (the fallback, and what the scenarios check their keys
// against), and the other catalogues come from the page, which fetches
// the reader's language (site/dist/i18n/LANG.txt) beside main.wasm. Load
// installs a catalogue's text; SetSource names a function that supplies
// one the first time it is asked for; until then, or if it fails, that
// language is English.
//
// # Contract
//
// A malformed line, a duplicate key, a key present in one language and not
// the other, or a placeholder set that differs between languages is a bug in
// the catalogues; the package's tests report each one as file:line. At run
// time the package never panics: an unknown language falls back to English
// and an unknown key is returned as ⟦key⟧ so that it shows on screen and a
// test can look for it.
package i18n
