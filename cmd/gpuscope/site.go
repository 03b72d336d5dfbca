package main

import (
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/gpuscope/gpuscope/internal/course"
	"github.com/gpuscope/gpuscope/internal/sitegen"
)

const siteUsage = "usage: gpuscope site [--dist DIR] [--base URL] [--course DIR]"

// siteHelp is gpuscope site --help.
const siteHelp = siteUsage + `

Writes the build-time pages into a built site (make build runs it after
copying the simulator there): a share page and an oEmbed file per lesson,
and the course built from its sources.

flags:
  --dist DIR
        the built site, holding index.html; default site/dist
  --base URL
        the site's public address, for oEmbed's absolute URLs: an http or
        https URL (a missing final / is added); default ` + sitegen.DefaultBase + `
  --course DIR
        the course's sources (site/course/FORMAT.md describes them); default
        site/course
  -h, --help
        print this help
`

// runSite writes the build-time pages of the static site: a share page
// and an oEmbed file per lesson, and the course built from its sources
// (make build runs it).
func runSite(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("site", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	dist := fs.String("dist", "site/dist", "the built site")
	base := fs.String("base", sitegen.DefaultBase, "the site's public address, for oEmbed's absolute URLs")
	courseDir := fs.String("course", "site/course", "the course's sources (FORMAT.md there)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(stdout, siteHelp)
			return 0
		}
		fmt.Fprintf(stderr, "gpuscope site: %v; %s\n", err, siteUsage)
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "gpuscope site: unexpected argument %q; %s\n", fs.Arg(0), siteUsage)
		return 2
	}
	if _, err := sitegen.CheckBase(*base); err != nil {
		fmt.Fprintf(stderr, "gpuscope site: %v\n", err)
		return 2
	}
	if err := sitegen.Generate(*dist, *base); err != nil {
		fmt.Fprintf(stderr, "gpuscope site: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "wrote a share page and an oEmbed file per lesson into %s (base %s)\n", *dist, *base)
	if err := course.Build(*courseDir, *dist); err != nil {
		fmt.Fprintf(stderr, "gpuscope site: the course (%s):\n%v\n", *courseDir, err)
		return 1
	}
	fmt.Fprintf(stdout, "wrote the course from %s into %s/course/ (and %s/sw.js)\n", *courseDir, *dist, *dist)
	return 0
}
