//go:build i18nfetch

package i18n

import "io/fs"

// With the i18nfetch tag (main.wasm, built by make wasm) no catalogue is
// embedded: the page fetches English, the fallback, and the reader's
// language (Load, SetSource), so main.wasm carries none of their text.
// The tests, built without the tag, check every catalogue's keys.
var files fs.FS = noFiles{}

const fetched = true

// noFiles is an empty file system.
type noFiles struct{}

func (noFiles) Open(name string) (fs.File, error) {
	return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
}
