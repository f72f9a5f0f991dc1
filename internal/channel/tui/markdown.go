package tui

import (
	"fmt"
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/text"
)

// markdown renders finished answers for the terminal: headings, emphasis,
// code (set apart, not syntax-highlighted: ADR-021), lists, quotes, links,
// rules and tables, word-wrapped to the width. Style "ascii" or "notty"
// renders without colours or attributes.
type markdown struct {
	plain bool
	md    goldmark.Markdown
}

func newMarkdown(style string) *markdown {
	return &markdown{
		plain: style == "ascii" || style == "notty",
		md:    goldmark.New(goldmark.WithExtensions(extension.Table, extension.Strikethrough)),
	}
}

var (
	mdHeading = lipgloss.NewStyle().Foreground(lipgloss.Color("39")).Bold(true)
	mdCode    = lipgloss.NewStyle().Foreground(lipgloss.Color("203"))
	mdBlock   = lipgloss.NewStyle().Foreground(lipgloss.Color("250"))
	mdLink    = lipgloss.NewStyle().Foreground(lipgloss.Color("33")).Underline(true)
	mdFaint   = lipgloss.NewStyle().Foreground(lipgloss.Color("243"))
	mdBold    = lipgloss.NewStyle().Bold(true)
	mdItalic  = lipgloss.NewStyle().Italic(true)
	mdStrike  = lipgloss.NewStyle().Strikethrough(true)
)

// render returns text rendered for a screen width columns wide.
func (md *markdown) render(src string, width int) string {
	b := []byte(src)
	doc := md.md.Parser().Parse(text.NewReader(b))
	r := &mdRenderer{src: b, plain: md.plain}
	return strings.TrimRight(r.blocks(doc, max(width, 10)), "\n")
}

type mdRenderer struct {
	src   []byte
	plain bool
}

func (r *mdRenderer) style(s lipgloss.Style, text string) string {
	if r.plain || text == "" {
		return text
	}
	return s.Render(text)
}

// blocks renders the block children of n, a blank line between them.
func (r *mdRenderer) blocks(n ast.Node, width int) string {
	var parts []string
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		if s := r.block(c, width); s != "" {
			parts = append(parts, s)
		}
	}
	sep := "\n\n"
	if l, ok := n.(*ast.ListItem); ok && l.Parent() != nil && l.Parent().(*ast.List).IsTight {
		sep = "\n"
	}
	return strings.Join(parts, sep)
}

func (r *mdRenderer) block(n ast.Node, width int) string {
	switch n := n.(type) {
	case *ast.Paragraph, *ast.TextBlock:
		return ansi.Wrap(r.inlines(n), width, "")
	case *ast.Heading:
		t := r.inlines(n)
		if r.plain {
			t = strings.Repeat("#", n.Level) + " " + t
		}
		return ansi.Wrap(r.style(mdHeading, t), width, "")
	case *ast.FencedCodeBlock, *ast.CodeBlock:
		return r.code(n)
	case *ast.List:
		return r.list(n, width)
	case *ast.Blockquote:
		return prefixLines(r.blocks(n, width-2), r.style(mdFaint, "│ "), r.style(mdFaint, "│ "))
	case *ast.ThematicBreak:
		return r.style(mdFaint, strings.Repeat("─", min(width, 40)))
	case *ast.HTMLBlock:
		return strings.TrimRight(r.lines(n), "\n")
	case *east.Table:
		return r.table(n, width)
	}
	return r.blocks(n, width)
}

// code renders a code block indented by two columns, never wrapped.
func (r *mdRenderer) code(n ast.Node) string {
	body := strings.TrimRight(r.lines(n), "\n")
	lines := strings.Split(body, "\n")
	for i, l := range lines {
		lines[i] = "  " + r.style(mdBlock, l)
	}
	return strings.Join(lines, "\n")
}

// lines returns the raw source lines of a block.
func (r *mdRenderer) lines(n ast.Node) string {
	var b strings.Builder
	ls := n.Lines()
	for i := 0; i < ls.Len(); i++ {
		seg := ls.At(i)
		b.Write(seg.Value(r.src))
	}
	return b.String()
}

func (r *mdRenderer) list(n *ast.List, width int) string {
	var items []string
	num := n.Start
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		marker := "• "
		if n.IsOrdered() {
			marker = fmt.Sprintf("%d. ", num)
			num++
		}
		pad := strings.Repeat(" ", ansi.StringWidth(marker))
		body := r.blocks(c, width-len(pad))
		items = append(items, prefixLines(body, r.style(mdFaint, marker), pad))
	}
	sep := "\n"
	if !n.IsTight {
		sep = "\n\n"
	}
	return strings.Join(items, sep)
}

// table renders a table with padded columns, or one line per row when it
// does not fit.
func (r *mdRenderer) table(n *east.Table, width int) string {
	var rows [][]string
	for row := n.FirstChild(); row != nil; row = row.NextSibling() {
		var cells []string
		for cell := row.FirstChild(); cell != nil; cell = cell.NextSibling() {
			cells = append(cells, r.inlines(cell))
		}
		rows = append(rows, cells)
	}
	var widths []int
	for _, row := range rows {
		for i, c := range row {
			if i >= len(widths) {
				widths = append(widths, 0)
			}
			widths[i] = max(widths[i], ansi.StringWidth(c))
		}
	}
	total := 0
	for _, w := range widths {
		total += w + 3
	}
	lines := make([]string, 0, len(rows)+1)
	for i, row := range rows {
		if total > width {
			lines = append(lines, ansi.Wrap(strings.Join(row, " | "), width, ""))
			continue
		}
		cells := make([]string, len(row))
		for j, c := range row {
			cells[j] = c + strings.Repeat(" ", widths[j]-ansi.StringWidth(c))
		}
		line := strings.TrimRight(strings.Join(cells, " │ "), " ")
		if i == 0 {
			line = r.style(mdBold, line)
		}
		lines = append(lines, line)
		if i == 0 {
			seps := make([]string, len(widths))
			for j, w := range widths {
				seps[j] = strings.Repeat("─", w)
			}
			lines = append(lines, r.style(mdFaint, strings.Join(seps, "─┼─")))
		}
	}
	return strings.Join(lines, "\n")
}

// inlines renders the inline children of n on one logical line (soft
// breaks become spaces; wrapping is the caller's).
func (r *mdRenderer) inlines(n ast.Node) string {
	var b strings.Builder
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		r.inline(&b, c)
	}
	return b.String()
}

func (r *mdRenderer) inline(b *strings.Builder, n ast.Node) {
	switch n := n.(type) {
	case *ast.Text:
		b.Write(n.Segment.Value(r.src))
		switch {
		case n.HardLineBreak():
			b.WriteByte('\n')
		case n.SoftLineBreak():
			b.WriteByte(' ')
		}
	case *ast.String:
		b.Write(n.Value)
	case *ast.CodeSpan:
		t := r.inlines(n)
		if r.plain {
			t = "`" + t + "`"
		}
		b.WriteString(r.style(mdCode, t))
	case *ast.Emphasis:
		s := mdItalic
		if n.Level >= 2 {
			s = mdBold
		}
		b.WriteString(r.style(s, r.inlines(n)))
	case *east.Strikethrough:
		b.WriteString(r.style(mdStrike, r.inlines(n)))
	case *ast.Link:
		t, url := r.inlines(n), string(n.Destination)
		b.WriteString(r.style(mdLink, t))
		if url != "" && url != t {
			b.WriteString(" (" + url + ")")
		}
	case *ast.AutoLink:
		b.WriteString(r.style(mdLink, string(n.URL(r.src))))
	case *ast.Image:
		fmt.Fprintf(b, "[image: %s] (%s)", r.inlines(n), n.Destination)
	case *ast.RawHTML:
		for i := 0; i < n.Segments.Len(); i++ {
			seg := n.Segments.At(i)
			b.Write(seg.Value(r.src))
		}
	default:
		b.WriteString(r.inlines(n))
	}
}

// prefixLines puts first before the first line of s and rest before the
// others.
func prefixLines(s, first, rest string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		p := rest
		if i == 0 {
			p = first
		}
		if l == "" && i > 0 {
			lines[i] = strings.TrimRight(p, " ")
			continue
		}
		lines[i] = p + l
	}
	return strings.Join(lines, "\n")
}
