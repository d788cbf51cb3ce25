"""Rich formats to text: markup masked in place (offsets kept), containers extracted."""

from __future__ import annotations

import io
import json
import re
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from doublet.engine.chars import char_units
from doublet.engine.words import word_strings
from doublet.extract import (
    JOIN,
    KIND_BY_EXTENSION,
    extract,
    is_extracted,
    kind_of,
    mask_html,
    mask_latex,
    mask_markdown,
    mask_rst,
)
from doublet.sources import NotText, decode
from tests.documents import make_pdf

MASKS: dict[str, Callable[[str], str]] = {
    "html": mask_html,
    "latex": mask_latex,
    "markdown": mask_markdown,
    "rst": mask_rst,
}

#: Escapes are the only places where the result holds a character the file does not.
ESCAPE_STARTS = {"html": "&", "latex": "\\", "markdown": "", "rst": ""}


def words(text: str) -> list[str]:
    """Visible words of a masked text (joiners removed, as a reader would see it)."""
    return re.findall(r"\w+", text.replace(JOIN, ""))


def assert_faithful(kind: str, source: str, masked: str) -> None:
    """The offsets contract: same length, same line breaks, markup masked, never moved."""
    assert len(masked) == len(source)
    breaks = [i for i, c in enumerate(source) if c in "\r\n"]
    assert [i for i, c in enumerate(masked) if c in "\r\n"] == breaks
    replacing = False  # inside a replacement (an entity may stand for two characters)
    for i, (original, out) in enumerate(zip(source, masked, strict=True)):
        if out in (original, " ", JOIN):
            replacing = False
            continue
        assert replacing or original in ESCAPE_STARTS[kind], (kind, i, original, out, source)
        replacing = True


# --- kinds -------------------------------------------------------------------------------


def test_kinds_by_extension() -> None:
    assert kind_of("a/b/Essay.HTML") == "html"
    assert kind_of("x.tex") == "latex"
    assert kind_of("x.markdown") == "markdown"
    assert kind_of("x.rst") == "rst"
    assert kind_of("x.txt") is None
    assert kind_of(Path("README")) is None
    assert is_extracted("x.docx") and is_extracted("x.PDF") and is_extracted("x.ipynb")
    assert is_extracted("x.odt")
    assert not is_extracted("x.html") and not is_extracted("x.md") and not is_extracted("x.py")
    assert set(KIND_BY_EXTENSION.values()) == {
        "html",
        "latex",
        "markdown",
        "rst",
        "docx",
        "pdf",
        "ipynb",
        "odt",
    }


# --- properties of every mask ------------------------------------------------------------

PIECES = {
    "html": [
        "<p>",
        "</p>",
        '<a href="https://x.org/a?b=1&amp;c">',
        "</a>",
        "<br/>",
        "<!-- note\n-->",
        "<script>if (a < b) {}\n</script>",
        "<style>p { x: 1 }</style>",
        "<head><title>T</title></head>",
        "&amp;",
        "&eacute;",
        "&#233;",
        "&#x4e2d;",
        "&#10;",
        "&#13;",
        "&nbsp;",
        "&bogus;",
        "<",
        ">",
        "&",
        '"',
        "<!DOCTYPE html>",
        "<![CDATA[",
        "]]>",
    ],
    "latex": [
        "\\textbf{",
        "\\emph{",
        "}",
        "{",
        "\\section*{",
        "% comment\n",
        "\\%",
        "\\\\",
        "$x^2$",
        "$",
        "$$a$$",
        "\\[ y \\]",
        "\\(z\\)",
        "\\cite{key}",
        "\\ref{sec:a}",
        "\\label{x}",
        "\\begin{itemize}",
        "\\end{itemize}",
        "\\item ",
        "\\begin{equation}E=mc^2\\end{equation}",
        "\\begin{verbatim}\nraw % x\n\\end{verbatim}",
        "\\verb|a%b|",
        "\\'e",
        '\\"{u}',
        "\\c{c}",
        "\\ss ",
        "\\'{\\i}",
        "~",
        "\\-",
        "\\",
        "\\begin{document}",
        "\\end{document}",
        "\\begin{tabular}{|l|p{2cm}|}",
    ],
    "markdown": [
        "[link](https://x.org/a_(b))",
        '![img](a.png "title")',
        "[ref][r1]",
        "\n[r1]: https://r.example\n",
        "\n```python\n",
        "\n```\n",
        "\n~~~\n",
        "`code [a](b)`",
        "<span>",
        "</span>",
        "<!-- c -->",
        "<https://auto.link>",
        "**",
        "_",
        "# ",
        "---\n",
        "]",
        "(",
    ],
    "rst": [
        "\n.. image:: a.png\n   :alt: x\n",
        "\n.. note:: words\n",
        "\n.. _target: https://x.org\n",
        "\n.. comment\n",
        "\n.. [1] foot\n",
        ":ref:`Title <label>`",
        ":func:`f`",
        "`Python <https://python.org>`_",
        "`anon`__",
        "``literal :ref:`x` ``",
        "`",
        ":",
        "..",
        "\n====\n",
    ],
}


def sprinkled(kind: str) -> st.SearchStrategy[str]:
    """Random text with the format's markup (whole and broken) sprinkled in."""
    prose = st.text(alphabet=st.characters(codec="utf-8"), max_size=8)
    spacing = st.sampled_from([" ", "\n", "\r\n", "\t", "\n\n", "é", "中", "word"])
    piece = st.one_of(st.sampled_from(PIECES[kind]), prose, spacing)
    return st.lists(piece, max_size=40).map("".join)


@pytest.mark.parametrize("kind", sorted(MASKS))
@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_masks_keep_length_lines_and_offsets(kind: str, data: st.DataObject) -> None:
    source = data.draw(sprinkled(kind))
    assert_faithful(kind, source, MASKS[kind](source))


@pytest.mark.parametrize("kind", sorted(MASKS))
@settings(max_examples=100, deadline=None)
@given(source=st.text(max_size=200))
def test_masks_on_any_text(kind: str, source: str) -> None:
    assert_faithful(kind, source, MASKS[kind](source))


@pytest.mark.parametrize("kind", sorted(MASKS))
def test_plain_prose_is_untouched(kind: str) -> None:
    prose = "Plain prose, with a comma; and (parentheses) at 5 o'clock.\nSecond line.\n"
    assert MASKS[kind](prose) == prose


# --- HTML --------------------------------------------------------------------------------

HTML = """<!DOCTYPE html>
<html><head><title>Secret title</title>
<style>body { color: hidden; }</style></head>
<body>
<p class="intro" title="attribute words">Caf&eacute;s &amp; th&#233; in &#x4e2d;&#25991;.</p>
<!-- a comment
   across lines -->
<script>var scripted = "words";</script>
<p>Visible <b>bold</b> and <a href="https://example.org/path">linked</a> text.</p>
</body></html>
"""


def test_html_masks_tags_head_scripts_styles_and_comments() -> None:
    masked = mask_html(HTML)
    assert_faithful("html", HTML, masked)
    kept = words(masked)
    for gone in ["Secret", "title", "hidden", "attribute", "intro", "comment", "scripted"]:
        assert gone not in kept
    for gone in ["html", "body", "href", "https", "example", "DOCTYPE", "class"]:
        assert gone not in kept
    assert kept == ["Cafés", "thé", "in", "中文", "Visible", "bold", "and", "linked", "text"]


def test_html_entities_become_their_character_at_the_same_offset() -> None:
    source = "a&amp;b caf&eacute;s &#233; &#x4E2D; &lt;tag&gt;"
    masked = mask_html(source)
    assert len(masked) == len(source)
    at = source.index("&eacute;")
    assert masked[at] == "é"
    assert masked[at + 1 : at + len("&eacute;")] == JOIN * 7
    assert masked[source.index("&#233;")] == "é"
    assert masked[source.index("&#x4E2D;")] == "中"
    assert masked.replace(JOIN, "") == "a&b cafés é 中 <tag>"


def test_html_entity_inside_a_word_does_not_split_it() -> None:
    masked = mask_html("the caf&eacute;s of Paris")
    assert word_strings(masked) == ["the", "cafes", "of", "paris"]
    # The unit of "é" spans the whole entity, so an underline ends after the ';'.
    units = char_units(masked)
    at = masked.index("é")
    index = int((units.starts == at).nonzero()[0][0])
    assert int(units.ends[index]) == at + len("&eacute;")


def test_html_unknown_entities_and_stray_ampersands_stay() -> None:
    source = "Q&A: &bogus; &copy2023 & more"
    assert mask_html(source) == source


def test_html_line_break_entities_do_not_move_lines() -> None:
    masked = mask_html("one&#10;two&#13;three")
    assert "\n" not in masked and "\r" not in masked
    assert words(masked) == ["one", "two", "three"]


def test_html_unterminated_elements_are_not_swallowed() -> None:
    source = "<script>broken\n<p>Still here</p>\n<!-- open comment\n<p>And here</p>"
    # The open comment ends at the next '>', as a browser's bogus comment would.
    assert words(mask_html(source)) == ["broken", "Still", "here", "And", "here"]


def test_html_comparison_inside_text_is_not_a_tag() -> None:
    assert words(mask_html("if a < b and b > c then a<3")) == [
        "if",
        "a",
        "b",
        "and",
        "b",
        "c",
        "then",
        "a",
        "3",
    ]


def test_html_head_without_closing_tag_ends_at_body() -> None:
    assert words(mask_html("<head><title>T</title><body>Body text</body>")) == ["Body", "text"]


# --- LaTeX -------------------------------------------------------------------------------

LATEX = r"""\documentclass[12pt]{article}
\usepackage{amsmath}
\title{Preamble title}
\begin{document}
\section{Introduction}\label{sec:intro}
We show \textbf{bold claims} and \emph{emphasis}, see \cite[p.~3]{knuth1984} and
Section~\ref{sec:intro}. % a private comment
Fifty\% of caf\'es in Stra\ss e, na\"{\i}ve, \c{c}a.
Inline $E = mc^2$ math and display \[ \int_0^1 f(x)\,dx \] math.
\begin{equation}
  a^2 + b^2 = c^2
\end{equation}
\begin{itemize}
  \item First point
\end{itemize}
Visit \href{https://example.org}{our site}.
\end{document}
Anything after the end.
"""


def test_latex_masks_commands_keys_math_comments_and_preamble() -> None:
    masked = mask_latex(LATEX)
    assert_faithful("latex", LATEX, masked)
    kept = words(masked)
    gone = ["documentclass", "article", "amsmath", "Preamble", "section", "label", "sec"]
    gone += ["intro", "textbf", "emph", "cite", "knuth1984", "ref", "private", "comment", "E"]
    gone += ["mc", "int_0", "dx", "equation", "a", "c", "itemize", "item", "href", "https"]
    gone += ["example", "document", "Anything"]
    for word in gone:
        assert word not in kept, word
    expected = (
        "Introduction We show bold claims and emphasis see and Section Fifty of cafés in "
        "Straße naïve ça Inline math and display math First point Visit our site"
    )
    assert kept == expected.split()


def test_latex_escaped_percent_is_not_a_comment() -> None:
    masked = mask_latex(r"Half 50\% of it \\% but this is a comment")
    assert words(masked) == ["Half", "50", "of", "it"]
    assert masked.replace(JOIN, "").split()[:3] == ["Half", "50%", "of"]


def test_latex_text_inside_formatting_stays_where_it_was() -> None:
    source = r"\textbf{important} \emph{words}"
    masked = mask_latex(source)
    for word in ("important", "words"):
        at = source.index(word)
        assert masked[at : at + len(word)] == word


def test_latex_braces_and_accents_do_not_split_words() -> None:
    masked = mask_latex(r"\textbf{im}portant caf\'e na\"{\i}ve")
    assert word_strings(masked) == ["important", "cafe", "naive"]


def test_latex_verbatim_keeps_its_code() -> None:
    source = "\\begin{verbatim}\nx = 1 % not a comment \\textbf{y}\n\\end{verbatim}\n"
    masked = mask_latex(source)
    assert "x = 1 % not a comment \\textbf{y}" in masked
    assert "verbatim" not in masked


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_latex_unterminated_math_is_not_swallowed(newline: str) -> None:
    source = f"Costs $5 and more.{newline}{newline}Next $paragraph \\begin{{equation}} x"
    assert words(mask_latex(source)) == ["Costs", "5", "and", "more", "Next", "paragraph", "x"]


def test_latex_tabular_column_spec_is_masked() -> None:
    masked = mask_latex("\\begin{tabular}{|l|p{3cm}|}\nCell one & Cell two \\\\\n\\end{tabular}")
    assert words(masked) == ["Cell", "one", "Cell", "two"]


# --- Markdown ----------------------------------------------------------------------------

MARKDOWN = """---
title: Front matter title
tags: [secret]
---
# A *heading* with **bold**

See [the docs](https://example.com/path_(x) "Tooltip") and ![a diagram](images/fig.png).
Use the [reference link][ref1] or <https://auto.example.org> and <span class="c">inline</span>.
<!-- hidden comment -->

[ref1]: https://ref.example.org "Ref title"
[^1]: A footnote stays.

```python
def kept():  # the code itself stays
    return "[x](y)"
```

Inline `code [a](b)` stays too.
"""


def test_markdown_masks_targets_html_fences_definitions_and_front_matter() -> None:
    masked = mask_markdown(MARKDOWN)
    assert_faithful("markdown", MARKDOWN, masked)
    kept = words(masked)
    for gone in ["Front", "secret", "https", "example", "Tooltip", "images", "fig", "ref1"]:
        assert gone not in kept, gone
    for gone in ["auto", "span", "hidden", "Ref", "python"]:
        assert gone not in kept, gone
    for stays in ["heading", "bold", "docs", "diagram", "reference", "inline", "footnote"]:
        assert stays in kept, stays
    assert 'def kept():  # the code itself stays\n    return "[x](y)"' in masked
    assert "Inline `code [a](b)` stays too." in masked


def test_markdown_emphasis_markers_stay_as_punctuation() -> None:
    source = "Some *emphasis* and __strong__ text."
    assert mask_markdown(source) == source


def test_markdown_unterminated_fence_keeps_the_rest() -> None:
    masked = mask_markdown("Intro\n```js\nlet a = [x](y);\n")
    assert words(masked) == ["Intro", "let", "a", "x", "y"]


# --- reStructuredText --------------------------------------------------------------------

RST = """Title
=====

.. image:: images/figure.png
   :alt: Alternative words
   :width: 200px

.. note:: Noted words stay.

.. _python-site: https://www.python.org

.. a private comment

.. [1] Footnote words stay.

See :ref:`Section words <section-label>` and :py:func:`helper`, or
`Python <https://www.python.org>`_, `anonymous`__ and ``literal :code:`kept` ``.

.. code-block:: python

   print("code stays")
"""


def test_rst_masks_directives_targets_comments_and_roles() -> None:
    masked = mask_rst(RST)
    assert_faithful("rst", RST, masked)
    kept = words(masked)
    for gone in ["image", "images", "figure", "png", "alt", "Alternative", "width", "200px"]:
        assert gone not in kept, gone
    for gone in ["note", "site", "www", "org", "private", "comment", "ref", "label", "func"]:
        assert gone not in kept, gone
    for gone in ["https", "block"]:
        assert gone not in kept, gone
    expected = (
        "Title Noted words stay Footnote words stay See Section words and helper or Python "
        "anonymous and literal code kept print code stays"
    )
    assert kept == expected.split()


@pytest.mark.parametrize(
    ("kind", "source"),
    [("html", HTML), ("latex", LATEX), ("markdown", MARKDOWN), ("rst", RST)],
)
def test_windows_line_endings_mask_the_same(kind: str, source: str) -> None:
    crlf = source.replace("\n", "\r\n")
    masked = MASKS[kind](crlf)
    assert_faithful(kind, crlf, masked)
    assert words(masked) == words(MASKS[kind](source))


# --- extract: markup kinds ---------------------------------------------------------------


def test_extract_decodes_then_masks_markup() -> None:
    source = "<p>Caf\xe9 cr\xe8me &amp; more</p>"
    data = source.encode("cp1252")
    text = extract(Path("page.htm"), data, decode)
    assert len(text) == len(source)
    assert words(text) == ["Café", "crème", "more"]


def test_extract_plain_text_is_decoded_unchanged() -> None:
    text = "Just <b>text</b> with \\commands and $math$.\n"
    assert extract(Path("notes.txt"), text.encode(), decode) == text


@pytest.mark.parametrize(
    ("name", "source"),
    [("essay.html", HTML), ("essay.tex", LATEX), ("essay.md", MARKDOWN), ("essay.rst", RST)],
)
def test_extract_markup_offsets_point_into_the_file(name: str, source: str) -> None:
    """Every word of the result is found in the file at the same offsets."""
    text = extract(Path(name), source.encode("utf-8"), decode)
    assert len(text) == len(source)
    for match in re.finditer(r"[^\s\u2060]+", text):
        start, end = match.span()
        if all(c == o for c, o in zip(match.group(), source[start:end], strict=True)):
            continue
        # Only a replaced escape may differ, and only at the escape's first offset.
        assert source[start:end] != match.group()
        assert any(source[i] in "&\\" for i in range(start, end)), match.group()


# --- extract: .docx ----------------------------------------------------------------------


def make_docx() -> bytes:
    import docx

    document = docx.Document()
    document.add_heading("Essay heading", level=1)
    document.add_paragraph("First paragraph of the essay.")
    table = document.add_table(rows=2, cols=2)
    table.cell(0, 0).text = "Cell A1"
    table.cell(0, 1).text = "Cell B1"
    merged = table.cell(1, 0).merge(table.cell(1, 1))
    merged.text = "Merged row"
    document.add_paragraph("Last paragraph, after the table.")
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()


def test_docx_paragraphs_and_tables_in_order_one_per_line() -> None:
    text = extract(Path("essay.docx"), make_docx(), decode)
    assert text.split("\n") == [
        "Essay heading",
        "First paragraph of the essay.",
        "Cell A1",
        "Cell B1",
        "Merged row",
        "Last paragraph, after the table.",
    ]


W = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"'
MC = 'xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006"'
WORD_XML = [
    # Tab stops are properties, not tabs; a tracked insertion counts, a deletion does not.
    f"""<w:p {W}><w:pPr><w:tabs><w:tab w:val="left" w:pos="720"/></w:tabs></w:pPr>
      <w:r><w:t xml:space="preserve">Kept </w:t></w:r>
      <w:ins w:id="1" w:author="a"><w:r><w:t>inserted</w:t></w:r></w:ins>
      <w:del w:id="2" w:author="a"><w:r><w:delText>deleted</w:delText></w:r></w:del>
      <w:r><w:tab/><w:t>after tab</w:t><w:br/><w:t>new line</w:t></w:r></w:p>""",
    # A content control, as university templates have.
    f"""<w:sdt {W}><w:sdtPr><w:alias w:val="Title"/></w:sdtPr><w:sdtContent>
      <w:p><w:r><w:t>Inside a content control</w:t></w:r></w:p></w:sdtContent></w:sdt>""",
    # A text box: its paragraph follows the anchoring one; the legacy copy is skipped.
    f"""<w:p {W} {MC}><w:r><w:t>Anchor</w:t></w:r><w:r><mc:AlternateContent>
      <mc:Choice Requires="wps"><w:drawing><w:txbxContent><w:p><w:r><w:t>Boxed words</w:t>
      </w:r></w:p></w:txbxContent></w:drawing></mc:Choice>
      <mc:Fallback><w:pict><w:txbxContent><w:p><w:r><w:t>Boxed words</w:t></w:r></w:p>
      </w:txbxContent></w:pict></mc:Fallback></mc:AlternateContent></w:r></w:p>""",
]


def test_docx_tracked_changes_content_controls_and_text_boxes() -> None:
    import docx
    from docx.oxml import parse_xml

    document = docx.Document()
    body = document.element.body
    for xml in WORD_XML:
        body.insert(len(body) - 1, parse_xml(xml))  # before the section properties
    out = io.BytesIO()
    document.save(out)
    text = extract(Path("essay.docx"), out.getvalue(), decode)
    assert text.split("\n") == [
        "Kept inserted\tafter tab",
        "new line",
        "Inside a content control",
        "Anchor",
        "Boxed words",
    ]


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        (b"this is not a zip archive at all", "damaged .docx (not a zip archive)"),
        (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + bytes(100), "password-protected .docx"),
        (b"", "empty .docx file"),
    ],
)
def test_docx_that_cannot_be_read_says_why(data: bytes, reason: str) -> None:
    with pytest.raises(NotText) as caught:
        extract(Path("essay.docx"), data, decode)
    assert caught.value.reason.startswith(reason)


def test_docx_damaged_inside_its_zip() -> None:
    archive = io.BytesIO()
    with zipfile.ZipFile(archive, "w") as z:
        z.writestr("hello.txt", "not a Word document")
    with pytest.raises(NotText) as caught:
        extract(Path("essay.docx"), archive.getvalue(), decode)
    assert caught.value.reason.startswith("damaged .docx (")

    truncated = make_docx()[:2000]
    with pytest.raises(NotText) as caught:
        extract(Path("essay.docx"), truncated, decode)
    assert caught.value.reason.startswith("damaged .docx (")


# --- extract: .pdf -----------------------------------------------------------------------


def test_pdf_pages_joined_by_a_form_feed_line() -> None:
    data = make_pdf([["Hello world (page one)", "second line"], ["Page two text"]])
    text = extract(Path("paper.pdf"), data, decode)
    first, second = text.split("\n\f\n")
    assert first.split("\n")[:2] == ["Hello world (page one)", "second line"]
    assert second.strip() == "Page two text"


def encrypted(data: bytes, user_password: str) -> bytes:
    from pypdf import PdfReader, PdfWriter

    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(data)))
    writer.encrypt(user_password=user_password, owner_password="owner", algorithm="RC4-128")
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def test_pdf_with_a_password_is_refused() -> None:
    data = encrypted(make_pdf([["Confidential"]]), "secret")
    with pytest.raises(NotText) as caught:
        extract(Path("paper.pdf"), data, decode)
    assert caught.value.reason == "password-protected PDF"


def test_pdf_encrypted_without_a_user_password_is_read() -> None:
    data = encrypted(make_pdf([["Readable words"]]), "")
    assert extract(Path("paper.pdf"), data, decode).strip() == "Readable words"


def test_pdf_without_text_is_a_scan() -> None:
    from pypdf import PdfWriter

    writer = PdfWriter()
    writer.add_blank_page(612, 792)
    out = io.BytesIO()
    writer.write(out)
    with pytest.raises(NotText) as caught:
        extract(Path("scan.pdf"), out.getvalue(), decode)
    assert caught.value.reason == "no text layer (scanned?)"


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        (b"just some bytes", "damaged PDF (no PDF header)"),
        (make_pdf([["Cut short"]])[:200], "damaged PDF ("),
        (b"%PDF-1.4\n" + bytes(range(256)) * 4, "damaged PDF ("),
        (b"", "empty .pdf file"),
    ],
)
def test_damaged_pdf_says_why(data: bytes, reason: str) -> None:
    with pytest.raises(NotText) as caught:
        extract(Path("paper.pdf"), data, decode)
    assert caught.value.reason.startswith(reason)


# --- extract: .ipynb ---------------------------------------------------------------------


def notebook(cells: list[dict]) -> bytes:
    return json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": cells}).encode()


def test_notebook_markdown_and_code_cells_without_outputs() -> None:
    data = notebook(
        [
            {
                "cell_type": "markdown",
                "metadata": {},
                "source": ["# Analysis\n", "See [x](http://u.rl)."],
            },
            {
                "cell_type": "code",
                "metadata": {},
                "execution_count": 1,
                "source": "import math\nprint(math.pi)",
                "outputs": [{"output_type": "stream", "name": "stdout", "text": ["3.14159\n"]}],
            },
            {"cell_type": "raw", "metadata": {}, "source": "raw cell ignored"},
        ]
    )
    text = extract(Path("work.ipynb"), data, decode)
    assert text == "# Analysis\nSee [x]             .\n\nimport math\nprint(math.pi)"
    assert is_extracted("work.ipynb")


def test_notebook_format_3_worksheets() -> None:
    data = json.dumps(
        {
            "nbformat": 3,
            "worksheets": [
                {
                    "cells": [
                        {"cell_type": "markdown", "source": ["Old notebook"]},
                        {"cell_type": "code", "input": ["x = 1"], "outputs": []},
                    ]
                }
            ],
        }
    ).encode()
    assert extract(Path("old.ipynb"), data, decode) == "Old notebook\n\nx = 1"


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        (b'{"cells": [', "damaged notebook (invalid JSON at line 1)"),
        (b'["not", "a", "notebook"]', "not a Jupyter notebook (no list of cells)"),
        (b'{"cells": [{"cell_type": "code", "source": 42}]}', "damaged notebook (cell 1 has"),
        (b"\x00\x01\x02binary", "binary file"),
    ],
)
def test_damaged_notebook_says_why(data: bytes, reason: str) -> None:
    with pytest.raises(NotText) as caught:
        extract(Path("work.ipynb"), data, decode)
    assert caught.value.reason.startswith(reason)


# --- extract: .odt -----------------------------------------------------------------------

ODT_CONTENT = """<?xml version="1.0" encoding="UTF-8"?>
<office:document-content
  xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0"
  xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0"
  xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0">
 <office:body><office:text>
  <text:h text:outline-level="1">Essay heading</text:h>
  <text:p>First <text:span>styled</text:span> words,<text:s text:c="2"/>spaced<text:note>
   <text:note-body><text:p>A footnote</text:p></text:note-body></text:note>.</text:p>
  <table:table><table:table-row>
   <table:table-cell><text:p>Cell one</text:p></table:table-cell>
   <table:table-cell><text:p>Cell two</text:p></table:table-cell>
  </table:table-row></table:table>
  <text:list><text:list-item><text:p>Listed item</text:p></text:list-item></text:list>
 </office:text></office:body>
</office:document-content>
"""


def make_odt(content: str = ODT_CONTENT, manifest: str = "<manifest/>") -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as z:
        z.writestr("mimetype", "application/vnd.oasis.opendocument.text")
        z.writestr("content.xml", content)
        z.writestr("META-INF/manifest.xml", manifest)
    return out.getvalue()


def test_odt_paragraphs_tables_and_lists_in_order() -> None:
    text = extract(Path("essay.odt"), make_odt(), decode)
    assert text.split("\n") == [
        "Essay heading",
        "First styled words,  spaced.",
        "Cell one",
        "Cell two",
        "Listed item",
    ]


def test_odt_damaged_or_encrypted_says_why() -> None:
    with pytest.raises(NotText) as caught:
        extract(Path("essay.odt"), make_odt(content="<office:broken"), decode)
    assert caught.value.reason.startswith("damaged .odt (")
    with pytest.raises(NotText) as caught:
        extract(Path("essay.odt"), make_odt(manifest="<m><encryption-data/></m>"), decode)
    assert caught.value.reason == "password-protected .odt"
