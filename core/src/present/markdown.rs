//! A requirement's Markdown as HTML that is safe to put into a page.

use pulldown_cmark::{CowStr, Event, Options, Parser, Tag, TagEnd, html};

/// `text` (CommonMark with tables and strikethrough) as HTML that can be set as a page's
/// inner HTML. A requirement comes from a dataset, and a case page may show a participant's
/// own dataset, so it is treated as hostile: raw HTML is shown as text, links keep only
/// `http:`, `https:`, `mailto:`, fragment and relative targets (others become plain text),
/// and images become links to themselves, so opening a case never loads anything.
///
/// Example: `"Use **`nx.Graph`**"` is `<p>Use <strong><code>nx.Graph</code></strong></p>`.
pub fn markdown_html(text: &str) -> String {
    let mut options = Options::empty();
    options.insert(Options::ENABLE_TABLES);
    options.insert(Options::ENABLE_STRIKETHROUGH);
    // Whether each open link or image is kept, so its end is dropped or kept alike.
    let mut open: Vec<bool> = Vec::new();
    let events = Parser::new_ext(text, options).filter_map(|event| match event {
        Event::Html(raw) | Event::InlineHtml(raw) => Some(Event::Text(raw)),
        Event::Start(Tag::Link {
            link_type,
            dest_url,
            title,
            id,
        })
        | Event::Start(Tag::Image {
            link_type,
            dest_url,
            title,
            id,
        }) => {
            let keep = safe_target(&dest_url);
            open.push(keep);
            keep.then_some(Event::Start(Tag::Link {
                link_type,
                dest_url,
                title,
                id,
            }))
        }
        Event::End(TagEnd::Link | TagEnd::Image) => open
            .pop()
            .unwrap_or(false)
            .then_some(Event::End(TagEnd::Link)),
        other => Some(other),
    });
    let mut out = String::with_capacity(text.len() + text.len() / 4);
    html::push_html(&mut out, events);
    out
}

/// Whether a link may point at `target`: a web or mail address, or a place on this site.
fn safe_target(target: &CowStr<'_>) -> bool {
    let target = target.trim_start();
    let Some(colon) = target.find(':') else {
        return true;
    };
    // A colon after a slash, `?` or `#` is inside a relative path, not a scheme.
    if target[..colon].contains(['/', '?', '#']) {
        return true;
    }
    let scheme = target[..colon].to_ascii_lowercase();
    matches!(scheme.as_str(), "http" | "https" | "mailto")
}

#[cfg(test)]
mod tests {
    use super::markdown_html;

    /// Each case: Markdown in, the HTML expected out.
    const CASES: &[(&str, &str)] = &[
        (
            "Use **`nx.Graph`**",
            "<p>Use <strong><code>nx.Graph</code></strong></p>\n",
        ),
        (
            "- a\n- b\n\n```python\nx = 1\n```\n",
            "<ul>\n<li>a</li>\n<li>b</li>\n</ul>\n<pre><code class=\"language-python\">x = 1\n</code></pre>\n",
        ),
        (
            "| a | b |\n|---|---|\n| 1 | 2 |\n",
            "<table><thead><tr><th>a</th><th>b</th></tr></thead><tbody>\n<tr><td>1</td><td>2</td></tr>\n</tbody></table>\n",
        ),
        // Raw HTML, block and inline, is text.
        (
            "<script>alert(1)</script>\n",
            "&lt;script&gt;alert(1)&lt;/script&gt;\n",
        ),
        (
            "a <img src=x onerror=alert(1)> b",
            "<p>a &lt;img src=x onerror=alert(1)&gt; b</p>\n",
        ),
        // Links: the web, mail, this site and fragments are kept; scripts are not.
        (
            "[docs](https://networkx.org/) [m](mailto:a@b.c) [s](/runs) [f](#x) [r](a/b:c)",
            "<p><a href=\"https://networkx.org/\">docs</a> <a href=\"mailto:a@b.c\">m</a> <a href=\"/runs\">s</a> <a href=\"#x\">f</a> <a href=\"a/b:c\">r</a></p>\n",
        ),
        ("[x](javascript:alert(1))", "<p>x</p>\n"),
        ("[x]( JavaScript:alert(1))", "<p>x</p>\n"),
        ("[x](data:text/html,hi)", "<p>x</p>\n"),
        // An image is never loaded: it is a link to itself, or text when unsafe.
        (
            "![plot](https://example.org/p.png)",
            "<p><a href=\"https://example.org/p.png\">plot</a></p>\n",
        ),
        ("![plot](javascript:x)", "<p>plot</p>\n"),
        ("", ""),
    ];

    #[test]
    fn markdown_becomes_safe_html() {
        for (markdown, expected) in CASES {
            assert_eq!(markdown_html(markdown), *expected, "for {markdown:?}");
        }
    }
}
