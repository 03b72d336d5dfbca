package scenarios

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"path"
	"slices"
	"strings"
)

// embedded holds the scenarios that loaded, in curriculum order; loadErr
// every problem with the embedded files (the tests fail on it; at run time
// a broken file is left out rather than stopping the program). The
// browser build (-tags i18nfetch) embeds none: the page hands them over
// as a bundle (LoadBundle) before anything asks for a lesson.
var embedded, loadErr = loadEmbedded(dataFS)

func loadEmbedded(fsys fs.FS) ([]*Scenario, error) {
	var errs []error
	order, err := fs.ReadFile(fsys, "data/curriculum.txt")
	if err != nil {
		return nil, err
	}
	files, err := fs.ReadDir(fsys, "data")
	if err != nil {
		return nil, err
	}
	var ids []string
	for i, line := range strings.Split(string(order), "\n") {
		id := stripComment(line)
		if id == "" {
			continue
		}
		if !isID(id) {
			errs = append(errs, &FileError{File: "data/curriculum.txt", Line: i + 1, Field: "id", Msg: fmt.Sprintf("%q is not a scenario id", id)})
			continue
		}
		ids = append(ids, id)
	}
	byID := map[string]*Scenario{}
	for _, f := range files {
		if path.Ext(f.Name()) != ".scn" {
			continue
		}
		name := "data/" + f.Name()
		src, err := fs.ReadFile(fsys, name)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		s, err := Load(name, src)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if want := strings.TrimSuffix(f.Name(), ".scn"); s.ID != want {
			errs = append(errs, &FileError{File: name, Line: 1, Field: "scenario", Msg: fmt.Sprintf("id %s does not match the file name (want %s)", s.ID, want)})
			continue
		}
		byID[s.ID] = s
	}
	var all []*Scenario
	for _, id := range ids {
		s, ok := byID[id]
		if !ok {
			errs = append(errs, fmt.Errorf("data/curriculum.txt: %s: no loadable file data/%s.scn", id, id))
			continue
		}
		all = append(all, s)
		delete(byID, id)
	}
	for _, id := range slices.Sorted(maps.Keys(byID)) {
		errs = append(errs, fmt.Errorf("data/%s.scn: not listed in data/curriculum.txt", id))
	}
	return all, errors.Join(errs...)
}

// All returns the embedded scenarios in curriculum order. The slice is a
// copy; the scenarios themselves are shared and must not be modified.
func All() []*Scenario { return append([]*Scenario(nil), embedded...) }

// Get returns the embedded scenario with the given id.
func Get(id string) (*Scenario, bool) {
	for _, s := range embedded {
		if s.ID == id {
			return s, true
		}
	}
	return nil, false
}

// IDs returns the ids of All, in the same order.
func IDs() []string {
	ids := make([]string, len(embedded))
	for i, s := range embedded {
		ids[i] = s.ID
	}
	return ids
}

// BundleMarker begins each file of a bundle: a line "=== data/NAME" then
// the file's text (make build writes site/dist/scenarios.txt so).
const BundleMarker = "=== "

// LoadBundle installs the scenarios from a bundle of the data files (the
// curriculum and every .scn), as the browser build's page hands it over:
// it replaces what was loaded, and returns the problems found, as the
// embedded files' are.
func LoadBundle(text string) error {
	files := bundleFS{}
	for _, part := range strings.Split("\n"+text, "\n"+BundleMarker)[1:] {
		name, body, _ := strings.Cut(part, "\n")
		files[strings.TrimSpace(name)] = []byte(body)
	}
	embedded, loadErr = loadEmbedded(files)
	return loadErr
}
