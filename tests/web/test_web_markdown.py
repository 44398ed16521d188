"""The requester's instructions and consent: a Markdown subset, every other character
escaped (raw HTML shows as text), links only to http(s) and mailto."""

from __future__ import annotations

import pytest

from simrate.web.markdown import render


def test_the_subset_becomes_tags():
    html = str(render("# Rate\n\nRead **both** and *then* `score`.\nNext line.\n\n"
                      "- one\n- two\n  goes on\n\n1. first\n2. second\n\n"
                      "[Our terms](https://example.org/t?a=1&b=2) or [mail](mailto:a@b.org)"))
    assert "<h2>Rate</h2>" in html
    assert "<p>Read <strong>both</strong> and <em>then</em> <code>score</code>.<br>" \
           "Next line.</p>" in html
    assert "<ul><li>one</li><li>two goes on</li></ul>" in html
    assert "<ol><li>first</li><li>second</li></ol>" in html
    assert '<a href="https://example.org/t?a=1&amp;b=2" rel="noopener noreferrer" ' \
           'target="_blank">Our terms</a>' in html
    assert 'href="mailto:a@b.org"' in html


@pytest.mark.parametrize("hostile", [
    "<script>alert(1)</script>", "<img src=x onerror=alert(1)>",
    "[x](javascript:alert(1))", '[x](https://a.org/" onmouseover="alert(1))',
    "[x](data:text/html,<script>alert(1)</script>)", "**<b>bold</b>**",
    "<a href='https://evil.example'>x</a>", "`<iframe>`"])
def test_raw_html_and_other_links_stay_text(hostile):
    html = str(render(hostile))
    for tag in ("<script", "<img", "<iframe", "<b>", "<a href='"):
        assert tag not in html  # shown as text: &lt;img ... &gt;
    assert 'onmouseover="' not in html
    assert not any(f'href="{scheme}' in html for scheme in ("javascript", "data"))


def test_an_empty_text_renders_nothing():
    assert str(render("")) == "" and str(render("\n\n")) == ""
