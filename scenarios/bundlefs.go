package scenarios

import (
	"io/fs"
	"path"
	"slices"
	"strings"
	"time"
)

// bundleFS is the data files of a bundle (LoadBundle) as a file system:
// ReadFile and ReadDir, all loadEmbedded asks of one.
type bundleFS map[string][]byte

func (b bundleFS) Open(name string) (fs.File, error) {
	return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
}

func (b bundleFS) ReadFile(name string) ([]byte, error) {
	if d, ok := b[name]; ok {
		return d, nil
	}
	return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
}

func (b bundleFS) ReadDir(dir string) ([]fs.DirEntry, error) {
	var es []fs.DirEntry
	for name := range b {
		if path.Dir(name) == dir {
			es = append(es, bundleEntry(path.Base(name)))
		}
	}
	slices.SortFunc(es, func(x, y fs.DirEntry) int { return strings.Compare(x.Name(), y.Name()) })
	return es, nil
}

// bundleEntry is a file of a bundle as a directory entry.
type bundleEntry string

func (e bundleEntry) Name() string               { return string(e) }
func (e bundleEntry) IsDir() bool                { return false }
func (e bundleEntry) Type() fs.FileMode          { return 0 }
func (e bundleEntry) Info() (fs.FileInfo, error) { return bundleInfo(e), nil }

type bundleInfo string

func (i bundleInfo) Name() string       { return string(i) }
func (i bundleInfo) Size() int64        { return 0 }
func (i bundleInfo) Mode() fs.FileMode  { return 0o444 }
func (i bundleInfo) ModTime() time.Time { return time.Time{} }
func (i bundleInfo) IsDir() bool        { return false }
func (i bundleInfo) Sys() any           { return nil }
