"""Rich formats to text: markup masked in place, containers extracted.

Two kinds of files reach the engine besides plain text.

*Markup kept in place* (HTML, LaTeX, Markdown, reStructuredText) is what people
edit as text, so an editor must be able to underline a passage in the file
itself. ``extract`` returns a string exactly as long as the decoded file, in
which markup is masked, so every offset into the result is an offset into the
file. Each character of the result is one of:

- the file's own character at that offset (prose, and markup that reads as
  punctuation, such as Markdown's ``**``);
- a space, for masked markup (tags, commands, math, link targets); line breaks
  (``\\n``, ``\\r``) are never masked, so lines stay where they were;
- :data:`JOIN` (U+2060 WORD JOINER), for markup that never separates words
  (LaTeX braces, ``\\-``) and for the tail of a replacement: the engine drops
  it without splitting a word, and counts it as part of the character before,
  so a passage ending there underlines the whole escape;
- a replacement: at the first offset of an escape that stands for a character
  (``&eacute;``, ``&#x4e2d;``, LaTeX ``\\'e``, ``\\ss``), that character,
  followed by joiners up to the escape's end.

Masking is a single left-to-right regular-expression pass per format: simple
and robust rather than complete. A construct whose end is missing (an
unterminated ``<script>`` or ``\\begin{equation}``) is not swallowed to the end
of the file; only its opening is masked.

*Extracted* formats (.docx, .pdf, .ipynb, .odt) are containers whose text has
no offsets of its own; offsets refer to the extracted text. A .docx or .odt
gives one paragraph per line, table cells one paragraph per line in reading
order (a .docx's tracked insertions, content controls and text boxes included,
its deletions, headers, footers and footnotes not); a PDF gives its pages'
text joined by a line holding only a form feed (``"\\n\\f\\n"``), so pages can
be counted and never run into each other; a notebook gives its markdown
(masked) and code cells' sources separated by a blank line, outputs ignored.
Damaged, encrypted or image-only files raise :class:`~doublet.skipped.NotText`
with a reason a user can act on.

python-docx and pypdf are imported only when such a file is read: start-up time
matters for the command line and the language server.
"""

from __future__ import annotations

import html
import io
import json
import os
import re
import unicodedata
from collections.abc import Callable, Iterator
from pathlib import Path, PurePath
from typing import Any

from doublet.engine.ignore_marks import keep_marks
from doublet.skipped import NotText

#: Invisible, and part of the character before it for the engine: masks markup
#: inside a word without splitting it.
JOIN = "\u2060"

#: Markup kinds keep offsets; extracted kinds have offsets of their own text.
MARKUP_KINDS = frozenset({"html", "latex", "markdown", "rst"})
EXTRACTED_KINDS = frozenset({"docx", "pdf", "ipynb", "odt"})

KIND_BY_EXTENSION: dict[str, str] = {
    ".html": "html",
    ".htm": "html",
    ".xhtml": "html",
    ".tex": "latex",
    ".latex": "latex",
    ".md": "markdown",
    ".markdown": "markdown",
    ".rst": "rst",
    ".docx": "docx",
    ".pdf": "pdf",
    ".ipynb": "ipynb",
    ".odt": "odt",
}

#: Extensions whose text is extracted (for discovery: these are not binary junk).
EXTRACTED_EXTENSIONS = frozenset(e for e, k in KIND_BY_EXTENSION.items() if k in EXTRACTED_KINDS)

Decoder = Callable[[bytes, Path | str], str]


def kind_of(path: PurePath | str) -> str | None:
    """The format of a file by its extension, or None for plain text."""
    # os.path, not a PurePath made for its suffix: 8 us a file, a refresh reads 100,000
    return KIND_BY_EXTENSION.get(os.path.splitext(os.fspath(path))[1].lower())


def is_extracted(path: PurePath | str) -> bool:
    """True when offsets refer to extracted text, not to the file's bytes decoded."""
    return kind_of(path) in EXTRACTED_KINDS


def extract(path: Path | str, data: bytes, decode: Decoder) -> str:
    """The text of a file of any supported format (plain text is decoded as is).

    Markup kinds are decoded with ``decode`` and masked (same length); extracted
    kinds are read from their container. Raises NotText for unreadable files.
    """
    kind = kind_of(path)
    try:
        if kind in _EXTRACTORS:
            if not data:
                raise NotText(path, f"empty .{kind} file")
            text = _EXTRACTORS[kind](Path(path), data, decode)
            if len(text) > MAX_TEXT:
                raise NotText(path, f"extracts to more than {MAX_TEXT:,} characters")
            return text
        if kind == "html" and _REPORT_MARK in data[:2048]:
            raise NotText(path, "a Doublet report (its quotes of other documents would match them)")
        text = decode(data, path)
        return keep_marks(text, _MASKS[kind](text)) if kind in _MASKS else text
    except RecursionError:  # nesting no document needs (3,000 "[" in a notebook)
        raise NotText(path, "nested too deeply to be read") from None
    except MemoryError:
        raise NotText(path, "too large to be read into memory") from None


#: What the head of Doublet's own report page says (report_html/page.html).
_REPORT_MARK = b'<meta name="generator" content="Doublet">'
#: Characters a rich file (.docx, .odt, .pdf, .ipynb) may extract to: a few kilobytes
#: of zip can hold a gigabyte of text, or say "200,000,000 spaces here" (ODF's text:s).
MAX_TEXT = 20_000_000
#: Bytes the parts of an office file's zip may unpack to, counted as they are read.
MAX_UNZIPPED = 200_000_000


# --- masking helpers ---------------------------------------------------------------------

_TEXT_RUN = re.compile(r"[^\r\n]+")


def _blank(s: str) -> str:
    """Spaces for every character but line breaks, so lines stay where they were."""
    return _TEXT_RUN.sub(lambda m: " " * len(m.group()), s)


def _joined(s: str) -> str:
    """Joiners for every character but line breaks: masked without splitting a word."""
    return _TEXT_RUN.sub(lambda m: JOIN * len(m.group()), s)


def _replace(span: str, char: str) -> str:
    """``char`` at the start of ``span``, joiners after it: same length, same lines."""
    char = re.sub(r"[\r\n]", " ", char)
    if len(char) > len(span) or "\n" in span or "\r" in span:
        return _blank(span)
    return char + JOIN * (len(span) - len(char))


Handler = Callable[[re.Match[str]], str]


def _mask(pattern: re.Pattern[str], handlers: dict[str, Handler], text: str) -> str:
    """One pass of ``pattern``; each match is rewritten by its top-level group's handler."""

    def rewrite(m: re.Match[str]) -> str:
        out = handlers.get(m.lastgroup or "", _whole_blank)(m)
        assert len(out) == len(m.group()), m.lastgroup
        return out

    return pattern.sub(rewrite, text)


def _whole_blank(m: re.Match[str]) -> str:
    return _blank(m.group())


def _whole_kept(m: re.Match[str]) -> str:
    return m.group()


def _whole_joined(m: re.Match[str]) -> str:
    return _joined(m.group())


# --- HTML --------------------------------------------------------------------------------

_ENTITY = r"&(?:\#[0-9]{1,7};?|\#[xX][0-9A-Fa-f]{1,6};?|[A-Za-z][A-Za-z0-9]{1,31};)"

#: A tag's quoted attribute may hold '>'; a long or unbalanced one (a data URI, a
#: stray quote) falls back to ending at the first '>', which keeps the pass linear.
_HTML = re.compile(
    r"""
    (?P<comment><!--.*?-->)
    |(?P<raw><(?P<rawname>script|style|template)\b[^>]*>.*?</(?P=rawname)\s*>)
    |(?P<head><head\b[^>]*>.*?(?:</head\s*>|(?=<body\b)))
    |(?P<cdata><!\[CDATA\[|\]\]>)
    |(?P<decl><[!?][^>]*>)
    |(?P<tag></?[A-Za-z](?:[^>"']|"[^"]{0,2000}"|'[^']{0,2000}')*>|</?[A-Za-z][^>]*>)
    |(?P<entity>"""
    + _ENTITY
    + r""")
    """,
    re.VERBOSE | re.DOTALL | re.IGNORECASE,
)
_HTML_ENTITY = re.compile(f"(?P<entity>{_ENTITY})")


def _html_entity(m: re.Match[str]) -> str:
    span = m.group()
    char = html.unescape(span)
    return span if char == span else _replace(span, char)


def mask_html(text: str) -> str:
    """HTML with tags, comments, head, scripts and styles masked; entities replaced."""
    # Past the last '>' no tag can end: only entities are looked for there, so a
    # run of '<' that never closes costs one scan, not one scan per '<'.
    cut = text.rfind(">") + 1
    handlers: dict[str, Handler] = {"entity": _html_entity}
    return _mask(_HTML, handlers, text[:cut]) + _mask(_HTML_ENTITY, handlers, text[cut:])


# --- LaTeX -------------------------------------------------------------------------------

_BEGIN_DOCUMENT = re.compile(r"\\begin\s*\{document\}")
_END_DOCUMENT = re.compile(r"\\end\s*\{document\}")

#: Commands whose first mandatory argument is not prose (keys, labels, paths, URLs).
_ARGUMENT_DROPPED = (
    r"[A-Za-z]*cite[A-Za-z]*|(?!hyperref)[A-Za-z]*ref|label|url|nolinkurl|includegraphics"
    r"|input|include|includeonly|bibliography|bibliographystyle|addbibresource|usepackage"
    r"|RequirePackage|documentclass|pagestyle|thispagestyle|vspace|hspace|setlength"
    r"|addtolength|setcounter|addtocounter|newcommand|renewcommand|providecommand"
    r"|newenvironment|renewenvironment|color|textcolor|colorbox|bibitem|lstinputlisting"
    r"|includepdf|graphicspath|hypersetup|geometry"
)

_LATEX = re.compile(
    r"""
    (?P<verbatim>\\begin\{(?P<venv>verbatim|Verbatim|lstlisting|minted)\*?\}
        (?:\[[^\]\n]*\])?(?:\{[^{}\n]*\})?
        .*?\\end\{(?P=venv)\*?\})
    |(?P<hidden>\\begin\{(?P<henv>equation|align|alignat|gather|multline|flalign|eqnarray
        |displaymath|math|tikzpicture|comment)(?P<star>\*?)\}.*?\\end\{(?P=henv)(?P=star)\})
    |(?P<display>\$\$.*?\$\$|\\\[.*?\\\]|\\\(.*?\\\))
    |(?P<inline>\$(?:\\.|[^$\\\n]|\n(?![ \t]*\r?\n))+\$)
    |(?P<comment>%[^\n]*)
    |(?P<verb>\\verb\*?(?P<delim>[^A-Za-z\s*])[^\n]*?(?P=delim))
    |(?P<accent>\\(?P<acc>['`^"~=.])[ \t]*(?:\{[ \t]*(?P<abase>[A-Za-z]|\\[ij])[ \t]*\}
        |(?P<bbase>[A-Za-z]|\\[ij](?![A-Za-z])))
      |\\(?P<acc2>[cvuHrkdb])(?:[ \t]*\{[ \t]*(?P<cbase>[A-Za-z]|\\[ij])[ \t]*\}
        |[ \t]+(?P<dbase>[A-Za-z])))
    |(?P<symbol>\\(?P<sym>ss|ae|AE|oe|OE|aa|AA|o|O|l|L|i|j)(?![A-Za-z])(?:\{\}|[ \t]*))
    |(?P<dropped>\\(?:"""
    + _ARGUMENT_DROPPED
    + r""")\*?(?:[ \t]*\[[^\]\n]*\])*[ \t]*\{[^{}]*\})
    |(?P<tabular>\\begin[ \t]*\{(?:tabular[x*]?|array|longtable|tabu)\}
        (?:[ \t]*\[[^\]\n]*\])?(?:[ \t]*\{[^{}\n]*\})?[ \t]*\{(?:[^{}\n]|\{[^{}\n]*\})*\})
    |(?P<environment>\\(?:begin|end)[ \t]*\{[^{}\n]*\}(?:[ \t]*\[[^\]\n]*\])?)
    |(?P<escape>\\[%&$\#_{}])
    |(?P<inword>\\[-/])
    |(?P<command>\\(?:[A-Za-z@]+\*?|.))
    |(?P<brace>[{}])
    |(?P<tie>~)
    """,
    re.VERBOSE | re.DOTALL,
)

_COMBINING = {
    "'": "\u0301",
    "`": "\u0300",
    "^": "\u0302",
    '"': "\u0308",
    "~": "\u0303",
    "=": "\u0304",
    ".": "\u0307",
    "c": "\u0327",
    "v": "\u030c",
    "u": "\u0306",
    "H": "\u030b",
    "r": "\u030a",
    "k": "\u0328",
    "d": "\u0323",
    "b": "\u0331",
}

_SYMBOLS = {
    "ss": "ß",
    "ae": "æ",
    "AE": "Æ",
    "oe": "œ",
    "OE": "Œ",
    "aa": "å",
    "AA": "Å",
    "o": "ø",
    "O": "Ø",
    "l": "ł",
    "L": "Ł",
    "i": "ı",
    "j": "ȷ",
}


def _latex_accent(m: re.Match[str]) -> str:
    accent = m.group("acc") or m.group("acc2")
    base = m.group("abase") or m.group("bbase") or m.group("cbase") or m.group("dbase")
    base = {"\\i": "i", "\\j": "j"}.get(base, base)
    accented = unicodedata.normalize("NFC", base + _COMBINING[accent])
    # Without a precomposed form the accent is dropped, as prose folding would drop it.
    return _replace(m.group(), accented if len(accented) == 1 else base)


def _latex_symbol(m: re.Match[str]) -> str:
    return _replace(m.group(), _SYMBOLS[m.group("sym")])


def _latex_verbatim(m: re.Match[str]) -> str:
    """Code stays (like a Markdown code block); only the environment's lines go."""
    whole = m.group()
    opening = re.match(r"\\begin\{[^}]*\}(?:\[[^\]\n]*\])?(?:\{[^{}\n]*\})?", whole)
    closing = re.search(r"\\end\{[^}]*\}\Z", whole)
    assert opening and closing
    head, tail = opening.end(), closing.start()
    return _blank(whole[:head]) + whole[head:tail] + _blank(whole[tail:])


def _latex_verb(m: re.Match[str]) -> str:
    whole = m.group()
    start = m.start("delim") - m.start() + 1
    return _blank(whole[:start]) + whole[start:-1] + " "


def _latex_escape(m: re.Match[str]) -> str:
    return JOIN + m.group()[1]


_LATEX_HANDLERS: dict[str, Handler] = {
    "verbatim": _latex_verbatim,
    "verb": _latex_verb,
    "accent": _latex_accent,
    "symbol": _latex_symbol,
    "escape": _latex_escape,
    "inword": _whole_joined,
    "brace": _whole_joined,
}


def mask_latex(text: str) -> str:
    """LaTeX with commands, comments, math, keys and the preamble masked; arguments' text kept."""
    begin = _BEGIN_DOCUMENT.search(text)
    start = begin.end() if begin else 0
    end_match = _END_DOCUMENT.search(text, start)
    end = end_match.start() if end_match else len(text)
    body = _mask(_LATEX, _LATEX_HANDLERS, text[start:end])
    return _blank(text[:start]) + body + _blank(text[end:])


# --- Markdown ----------------------------------------------------------------------------

_MARKDOWN = re.compile(
    r"""
    (?P<front>\A---[ \t]*\r?\n.*?\n(?:---|\.\.\.)[ \t]*\r?(?=\n|\Z))
    |(?P<fence>(?P<fopen>^[ \t]{0,3}(?P<fchars>`{3,}|~{3,})[^\n]*)
        (?:\n.*?(?:\n(?P<fclose>[ \t]{0,3}(?P=fchars)[`~]*[ \t]*\r?)(?=\n|\Z)|\Z)|\Z))
    |(?P<code>``[^\n]+?``|`[^`\n]+`)
    |(?P<comment><!--.*?-->)
    |(?P<autolink><[A-Za-z][A-Za-z0-9+.-]{1,31}:[^\s<>]*>)
    |(?P<tag></?[A-Za-z][A-Za-z0-9-]*(?:\s[^<>\n]*)?/?>)
    |(?P<definition>^[ \t]{0,3}\[(?!\^)[^\]\n]+\]:[ \t]*\S[^\n]*)
    |(?P<target>\]\([ \t]*(?:<[^<>\n]*>|[^\s()]*(?:\([^\s()]*\)[^\s()]*)*)
        (?:[ \t]+(?:"[^"\n]*"|'[^'\n]*'|\([^()\n]*\)))?[ \t]*\))
    |(?P<reference>\]\[[^\]\n]*\])
    """,
    re.VERBOSE | re.DOTALL | re.MULTILINE,
)


def _markdown_fence(m: re.Match[str]) -> str:
    """The code stays; its fence lines (with the info string) go."""
    whole, base = m.group(), m.start()
    head = m.end("fopen") - base
    tail = m.start("fclose") - base if m.group("fclose") is not None else len(whole)
    return _blank(whole[:head]) + whole[head:tail] + _blank(whole[tail:])


def _markdown_target(m: re.Match[str]) -> str:
    return "]" + _blank(m.group()[1:])


_MARKDOWN_HANDLERS: dict[str, Handler] = {
    "fence": _markdown_fence,
    "code": _whole_kept,
    "target": _markdown_target,
    "reference": _markdown_target,
}


def mask_markdown(text: str) -> str:
    """Markdown with link targets, HTML, fences, definitions and front matter masked."""
    return _mask(_MARKDOWN, _MARKDOWN_HANDLERS, text)


# --- reStructuredText --------------------------------------------------------------------

_RST = re.compile(
    r"""
    (?P<directive>^[ \t]*\.\.[ \t]+(?:\|[^|\n]+\|[ \t]+)?[\w.+-]+(?::[\w.+-]+)*::[^\n]*
        (?:\n[ \t]+:[^:\n]+:(?:[ \t][^\n]*)?(?=\n|\Z))*)
    |(?P<target>^[ \t]*(?:\.\.[ \t]+_|__[ \t])[^\n]*)
    |(?P<label>^[ \t]*\.\.[ \t]+\[[^\]\n]+\])
    |(?P<comment>^[ \t]*\.\.(?:[ \t][^\n]*)?\r?(?=\n|\Z))
    |(?P<literal>``[^\n]+?``)
    |(?P<role>:[\w.+-]+(?::[\w.+-]+)?:`(?P<rtext>[^`\n]*)`)
    |(?P<link>`(?P<ltext>[^`\n]+)`__?)
    """,
    re.VERBOSE | re.MULTILINE,
)

_EMBEDDED_TARGET = re.compile(r"\s*<[^<>]*>\s*\Z")

#: Directives whose argument on the directive line is body text, not a name or path.
_ADMONITIONS = frozenset(
    "admonition attention caution danger error hint important note tip warning "
    "seealso versionadded versionchanged deprecated topic sidebar rubric".split()
)
_DIRECTIVE_NAME = re.compile(r"[ \t]*\.\.[ \t]+([\w.+:-]+?)::")


def _rst_directive(m: re.Match[str]) -> str:
    """Mask the directive and its options; an admonition's own words stay."""
    whole = m.group()
    name = _DIRECTIVE_NAME.match(whole)
    if name and name.group(1).lower() in _ADMONITIONS:
        first_line = whole.split("\n", 1)[0]
        return (
            _blank(whole[: name.end()])
            + first_line[name.end() :]
            + _blank(whole[len(first_line) :])
        )
    return _blank(whole)


def _rst_interpreted(m: re.Match[str], text_group: str) -> str:
    """Keep the text of a role or reference; mask its marker, backticks and ``<target>``."""
    whole = m.group()
    first, last = m.start(text_group) - m.start(), m.end(text_group) - m.start()
    text = whole[first:last]
    target = _EMBEDDED_TARGET.search(text)
    if target and target.start() > 0:
        text = text[: target.start()] + _blank(text[target.start() :])
    return _blank(whole[:first]) + text + _blank(whole[last:])


_RST_HANDLERS: dict[str, Handler] = {
    "directive": _rst_directive,
    "literal": _whole_kept,
    "role": lambda m: _rst_interpreted(m, "rtext"),
    "link": lambda m: _rst_interpreted(m, "ltext"),
}


def mask_rst(text: str) -> str:
    """reStructuredText with directives, comments, targets and role markers masked."""
    return _mask(_RST, _RST_HANDLERS, text)


_MASKS: dict[str, Callable[[str], str]] = {
    "html": mask_html,
    "latex": mask_latex,
    "markdown": mask_markdown,
    "rst": mask_rst,
}


# --- extracted formats -------------------------------------------------------------------

#: Compound-file signature: an encrypted Office document (or a .doc renamed).
_OLE_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"


def _damaged(path: Path, what: str, exc: BaseException) -> NotText:
    detail = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    if len(detail) > 120:
        detail = detail[:117] + "..."
    return NotText(path, f"damaged {what} ({detail})")


def _check_zip(path: Path, data: bytes, what: str) -> None:
    """Office files are zip archives; say plainly when this one is not, or when it
    unpacks to more than MAX_UNZIPPED bytes (counted as read: sizes in a zip can lie)."""
    import zipfile

    if data.startswith(_OLE_MAGIC):
        raise NotText(path, f"password-protected {what} (or an old binary format renamed)")
    if not data.startswith(b"PK"):
        raise NotText(path, f"damaged {what} (not a zip archive)")
    left = MAX_UNZIPPED
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            for info in archive.infolist():
                with archive.open(info) as part:
                    while chunk := part.read(1 << 20):
                        left -= len(chunk)
                        if left < 0:
                            raise NotText(
                                path, f"{what} unpacks to more than {MAX_UNZIPPED:,} bytes"
                            )
    except NotText:
        raise
    except Exception as exc:  # zipfile and zlib errors
        raise _damaged(path, what, exc) from None


def _extract_docx(path: Path, data: bytes, decode: Decoder) -> str:
    """Paragraphs and table cells in reading order, one paragraph per line.

    python-docx opens the package; the body's XML is then walked directly, because
    python-docx's paragraphs leave out text that students' files often hold:
    tracked insertions, content controls (university templates) and text boxes.
    Deleted text, field codes and the legacy copy of each text box are left out.
    """
    _check_zip(path, data, ".docx")
    import docx  # imported lazily: start-up time

    try:
        body = docx.Document(io.BytesIO(data)).element.body
        return "\n".join(_docx_lines(body))
    except Exception as exc:  # python-docx, zipfile and lxml raise many kinds
        raise _damaged(path, ".docx", exc) from None


_W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
_DOCX_FALLBACK = "{http://schemas.openxmlformats.org/markup-compatibility/2006}Fallback"
_DOCX_INLINE = {f"{_W}tab": "\t", f"{_W}br": "\n", f"{_W}cr": "\n", f"{_W}noBreakHyphen": "-"}
#: Not text: the old copy of a text box, tracked deletions and moves' old place.
_DOCX_SKIPPED = frozenset({_DOCX_FALLBACK, f"{_W}del", f"{_W}moveFrom"})


def _docx_skipped(tag: Any) -> bool:
    """Properties (``w:pPr`` holds tab stops, not tabs) and text that is not there."""
    return not isinstance(tag, str) or tag in _DOCX_SKIPPED or tag.endswith("Pr")


def _docx_lines(element: Any) -> Iterator[str]:
    """One line per paragraph under ``element`` (cells, content controls included)."""
    for child in element:
        if child.tag == f"{_W}p":
            yield from _docx_paragraph(child)
        elif not _docx_skipped(child.tag):
            yield from _docx_lines(child)


def _docx_paragraph(paragraph: Any) -> Iterator[str]:
    """The paragraph's line, then the lines of paragraphs nested in it (text boxes)."""
    parts: list[str] = []
    nested: list[str] = []

    def walk(element: Any) -> None:
        for child in element:
            tag = child.tag
            if tag == f"{_W}t":
                parts.append(child.text or "")
            elif tag in _DOCX_INLINE:
                parts.append(_DOCX_INLINE[tag])
            elif tag == f"{_W}p":
                nested.extend(_docx_paragraph(child))
            elif not _docx_skipped(tag):
                walk(child)

    walk(paragraph)
    yield "".join(parts)
    yield from nested


def _extract_pdf(path: Path, data: bytes, decode: Decoder) -> str:
    """Pages' text joined by a form-feed line; refused when no page has text."""
    import logging

    from pypdf import PdfReader
    from pypdf.errors import DependencyError

    if b"%PDF-" not in data[:1024]:
        raise NotText(path, "damaged PDF (no PDF header)")
    # pypdf logs every repaired oddity as a warning; the user can do nothing with them.
    logging.getLogger("pypdf").setLevel(logging.ERROR)
    try:
        reader = PdfReader(io.BytesIO(data))
        if reader.is_encrypted and not reader.decrypt(""):
            raise NotText(path, "password-protected PDF")
        pages = [page.extract_text() or "" for page in reader.pages]
    except NotText:
        raise
    except DependencyError:
        raise NotText(path, "encrypted PDF (reading it needs the cryptography package)") from None
    except Exception as exc:  # pypdf raises many kinds on damaged files
        raise _damaged(path, "PDF", exc) from None
    if not pages:
        raise NotText(path, "PDF without pages")
    if not any(page.strip() for page in pages):
        raise NotText(path, "no text layer (scanned?)")
    return "\n\f\n".join(pages)


def _extract_ipynb(path: Path, data: bytes, decode: Decoder) -> str:
    """Markdown (masked) and code cells' sources, a blank line between cells."""
    try:
        notebook = json.loads(decode(data, path))
    except json.JSONDecodeError as exc:
        raise NotText(path, f"damaged notebook (invalid JSON at line {exc.lineno})") from None
    parts = []
    for number, cell in enumerate(_notebook_cells(path, notebook), 1):
        kind = cell.get("cell_type")
        if kind not in ("markdown", "code"):
            continue
        source = cell.get("source", cell.get("input", ""))  # "input": nbformat 3 code
        if isinstance(source, list) and all(isinstance(line, str) for line in source):
            source = "".join(source)
        if not isinstance(source, str):
            raise NotText(path, f"damaged notebook (cell {number} has no readable source)")
        parts.append(mask_markdown(source) if kind == "markdown" else source)
    return "\n\n".join(parts)


def _notebook_cells(path: Path, notebook: object) -> list[dict]:
    """Cells of an nbformat 4 notebook, or of nbformat 3's worksheets."""
    cells: object = None
    if isinstance(notebook, dict):
        cells = notebook.get("cells")
        worksheets = notebook.get("worksheets")
        if cells is None and isinstance(worksheets, list):
            cells = [c for w in worksheets if isinstance(w, dict) for c in w.get("cells", [])]
    if not isinstance(cells, list) or not all(isinstance(c, dict) for c in cells):
        raise NotText(path, "not a Jupyter notebook (no list of cells)")
    return cells


_ODT_TEXT = "urn:oasis:names:tc:opendocument:xmlns:text:1.0"
_ODT_OFFICE = "urn:oasis:names:tc:opendocument:xmlns:office:1.0"
_MANIFEST = "META-INF/manifest.xml"
_ODT_PARAGRAPHS = {f"{{{_ODT_TEXT}}}p", f"{{{_ODT_TEXT}}}h"}
#: Inside a paragraph but not part of its text: footnotes, comments, frames.
_ODT_SKIPPED = (
    f"{{{_ODT_TEXT}}}note",
    f"{{{_ODT_OFFICE}}}annotation",
    "{urn:oasis:names:tc:opendocument:xmlns:drawing:1.0}",
)


def _extract_odt(path: Path, data: bytes, decode: Decoder) -> str:
    """Paragraphs and headings in reading order (tables and lists included), one per line."""
    import zipfile
    from xml.etree import ElementTree

    _check_zip(path, data, ".odt")
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            if _MANIFEST in archive.namelist() and b"encryption-data" in archive.read(_MANIFEST):
                raise NotText(path, "password-protected .odt")
            root = ElementTree.fromstring(archive.read("content.xml"))
        body = root.find(f"{{{_ODT_OFFICE}}}body")
        return "\n".join(_odt_lines(body, [MAX_TEXT])) if body is not None else ""
    except NotText:
        raise
    except _TooLong:
        raise NotText(path, f"extracts to more than {MAX_TEXT:,} characters") from None
    except Exception as exc:  # zipfile and expat errors, a missing content.xml
        raise _damaged(path, ".odt", exc) from None


class _TooLong(Exception):
    """The text being extracted passed MAX_TEXT characters."""


def _odt_lines(element: Any, left: list[int]) -> Iterator[str]:
    for child in element:
        if child.tag in _ODT_PARAGRAPHS:
            yield "".join(_odt_inline(child, left))
        else:
            yield from _odt_lines(child, left)


def _odt_inline(element: Any, left: list[int]) -> Iterator[str]:
    """A paragraph's text: spans and links read through, ``text:s`` spaces expanded;
    ``left`` counts down the characters that may still be extracted."""

    def counted(piece: str) -> str:
        left[0] -= len(piece)
        if left[0] < 0:
            raise _TooLong
        return piece

    yield counted(element.text or "")
    for child in element:
        tag = child.tag
        if tag == f"{{{_ODT_TEXT}}}s":  # a count no text needs stops at what may be read
            count = int(child.get(f"{{{_ODT_TEXT}}}c", "1") or 1)
            yield counted(" " * min(max(count, 0), left[0] + 1))
        elif tag == f"{{{_ODT_TEXT}}}tab":
            yield counted("\t")
        elif tag == f"{{{_ODT_TEXT}}}line-break":
            yield counted("\n")
        elif not tag.startswith(_ODT_SKIPPED):
            yield from _odt_inline(child, left)
        yield counted(child.tail or "")


_EXTRACTORS: dict[str, Callable[[Path, bytes, Decoder], str]] = {
    "docx": _extract_docx,
    "pdf": _extract_pdf,
    "ipynb": _extract_ipynb,
    "odt": _extract_odt,
}
