package course

import (
	"bytes"
	"html/template"
	"net/url"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"
)

// md renders the prose: github.com/yuin/goldmark, a well-kept CommonMark
// implementation, used at build time only — this package is native Go and
// never part of main.wasm (TestNotInWasm checks). goldmark's defaults
// leave raw HTML in the sources out: the pages run under a strict CSP,
// and the format has directives for everything the prose needs.
var md = goldmark.New()

// rendered is a piece of Markdown as HTML, with its plain text for the
// search index and its links for the checks.
type rendered struct {
	HTML     template.HTML
	Text     string   // plain text, blocks separated by newlines
	Headings []string // headings' plain text
	Links    []link
}

// link is a link or image destination in Markdown and its line.
type link struct {
	Dest string
	Line int
}

// renderMarkdown renders src, whose first line is line firstLine of its
// file.
func renderMarkdown(src string, firstLine int) (rendered, error) {
	source := []byte(src)
	doc := md.Parser().Parse(text.NewReader(source))
	var out rendered
	var buf bytes.Buffer
	if err := md.Renderer().Render(&buf, source, doc); err != nil {
		return out, err
	}
	out.HTML = template.HTML(buf.String())
	lineOf := func(n ast.Node) int {
		for c := n; c != nil; {
			if t, ok := c.(*ast.Text); ok {
				return firstLine + bytes.Count(source[:t.Segment.Start], []byte("\n"))
			}
			if c.HasChildren() {
				c = c.FirstChild()
				continue
			}
			break
		}
		if n.Type() == ast.TypeBlock && n.Lines().Len() > 0 {
			return firstLine + bytes.Count(source[:n.Lines().At(0).Start], []byte("\n"))
		}
		if p := n.Parent(); p != nil {
			for ; p != nil; p = p.Parent() {
				if p.Type() == ast.TypeBlock && p.Lines().Len() > 0 {
					return firstLine + bytes.Count(source[:p.Lines().At(0).Start], []byte("\n"))
				}
			}
		}
		return firstLine
	}
	var sb strings.Builder
	err := ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			if n.Type() == ast.TypeBlock {
				sb.WriteByte('\n')
			}
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.Heading:
			out.Headings = append(out.Headings, plainText(n, source))
		case *ast.Link:
			out.Links = append(out.Links, link{string(n.Destination), lineOf(n)})
		case *ast.Image:
			out.Links = append(out.Links, link{string(n.Destination), lineOf(n)})
		case *ast.AutoLink:
			sb.Write(n.URL(source))
		case *ast.Text:
			sb.Write(n.Value(source))
			if n.SoftLineBreak() || n.HardLineBreak() {
				sb.WriteByte(' ')
			}
		case *ast.String:
			sb.Write(n.Value)
		case *ast.CodeBlock, *ast.FencedCodeBlock:
			lines := n.Lines()
			for i := 0; i < lines.Len(); i++ {
				seg := lines.At(i)
				sb.Write(seg.Value(source))
			}
		}
		return ast.WalkContinue, nil
	})
	out.Text = sb.String()
	return out, err
}

// plainText is the text inside an inline container (a heading).
func plainText(n ast.Node, source []byte) string {
	var sb strings.Builder
	_ = ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch c := c.(type) {
		case *ast.Text:
			sb.Write(c.Value(source))
			if c.SoftLineBreak() {
				sb.WriteByte(' ')
			}
		case *ast.String:
			sb.Write(c.Value)
		}
		return ast.WalkContinue, nil
	})
	return strings.TrimSpace(sb.String())
}

// relativeTarget splits a link destination into its path and fragment
// when it is relative to the page (no scheme, no host, not rooted);
// ok is false for any other.
func relativeTarget(dest string) (path, fragment string, ok bool) {
	u, err := url.Parse(dest)
	if err != nil || u.Scheme != "" || u.Host != "" || strings.HasPrefix(dest, "//") {
		return "", "", false
	}
	return u.Path, u.Fragment, true
}

// collapse squeezes runs of white space into single spaces.
func collapse(s string) string { return strings.Join(strings.Fields(s), " ") }
