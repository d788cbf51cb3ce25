"""Files to text: decoding every encoding students use, refusing non-text."""

from __future__ import annotations

import codecs
import os
from pathlib import Path

import pytest

from doublet.skipped import NotText
from doublet.sources import decode, read_bytes, read_document


def read_text(path: Path | str, max_bytes: int | None = None) -> str:
    return read_document(path, read_bytes(path, max_bytes=max_bytes))


MIXED = "Café “naïve” — 学术诚信 😀 end\n"

CHINESE_PARAGRAPH = (
    "学术诚信是大学教育的基石。每一位学生都应当独立完成自己的作业，不得抄袭他人的成果。"
    "如果在论文中引用了别人的观点或者数据，必须注明出处，并且按照规定的格式列出参考文献。"
    "抄袭不仅违反学校的规章制度，也会损害学生自身的学习能力和长远发展。"
    "老师们希望同学们能够认真对待每一次作业，通过自己的努力来掌握知识，培养批判性思维。"
    "我们相信，诚实的学习态度将使每个人受益终身，也能让整个学术环境更加公平。"
)


# --- decoding ----------------------------------------------------------------------------


def test_decode_utf8() -> None:
    assert decode(MIXED.encode("utf-8")) == MIXED


def test_decode_utf8_with_bom_drops_the_bom() -> None:
    text = decode(codecs.BOM_UTF8 + MIXED.encode("utf-8"))
    assert text == MIXED
    assert not text.startswith("\ufeff")


def test_decode_utf16_le_with_bom() -> None:
    text = decode(codecs.BOM_UTF16_LE + MIXED.encode("utf-16-le"))
    assert text == MIXED


def test_decode_utf16_be_with_bom() -> None:
    text = decode(codecs.BOM_UTF16_BE + MIXED.encode("utf-16-be"))
    assert text == MIXED


def test_decode_utf16_as_written_by_python() -> None:
    assert decode(MIXED.encode("utf-16")) == MIXED


def test_decode_utf32_with_bom() -> None:
    assert decode(MIXED.encode("utf-32")) == MIXED


def test_decode_empty_file() -> None:
    assert decode(b"") == ""


def test_invalid_utf16_after_bom_is_not_text() -> None:
    # A lone low surrogate cannot appear in valid UTF-16.
    with pytest.raises(NotText, match="invalid utf-16-le after its byte-order mark"):
        decode(codecs.BOM_UTF16_LE + b"a\x00\x00\xdc")


@pytest.mark.parametrize(
    "paragraph",
    [
        "It’s a “quoted” word and a café in the city, costing £5, visited by many "
        "students every day.",
        "The museum’s new café opened last week. Tickets cost £8 for adults and £4 for "
        "children, and the “members’ evening” on Friday is free.",
        "When the café closed, the owner said: “We couldn’t pay the rent.” It had risen "
        "from £900 to £1,400 a month.",
        pytest.param(
            "Dear Sir, I’m writing about the invoice for £250. The café’s “special offer” "
            "was not applied, and I’d like a refund.",
            id="pound-read-as-cp1250",
        ),
        pytest.param(
            "The résumé said she had worked at a café in Paris. Her salary was £18,000 a "
            "year, which she called “modest but fair”.",
            id="accent-read-as-cp775",
        ),
    ],
)
def test_decode_cp1252_paragraph(paragraph: str) -> None:
    assert decode(paragraph.encode("cp1252")) == paragraph


@pytest.mark.parametrize("encoding", ["gbk", "gb18030"])
def test_decode_chinese_legacy_encoding(encoding: str) -> None:
    assert len(CHINESE_PARAGRAPH) >= 190
    assert decode(CHINESE_PARAGRAPH.encode(encoding)) == CHINESE_PARAGRAPH


def test_nul_bytes_mean_binary() -> None:
    with pytest.raises(NotText, match="binary") as caught:
        decode(b"PK\x03\x04\x00\x00 some zip header", "work.zip")
    assert caught.value.path == "work.zip"
    assert "binary" in caught.value.reason


def test_a_stray_nul_byte_in_a_long_text_is_kept() -> None:
    # text copied from the web sometimes carries one (11 documents of PAN 2013 do)
    text = "A long essay about bees. " * 40
    assert decode((text[:300] + "\x00" + text[300:]).encode()) == text[:300] + "\x00" + text[300:]


@pytest.mark.parametrize("encoding", ["utf-16-le", "utf-16-be"])
def test_utf16_without_a_byte_order_mark_is_text(encoding: str) -> None:
    assert decode(MIXED.encode(encoding)) == MIXED


def test_not_text_message_names_the_file() -> None:
    error = NotText(Path("a/b.txt"), "some reason")
    assert str(error) == f"{Path('a/b.txt')}: some reason"


# --- reading files -----------------------------------------------------------------------


def test_read_text_decodes_a_file(tmp_path: Path) -> None:
    path = tmp_path / "essay.txt"
    path.write_bytes(codecs.BOM_UTF8 + MIXED.encode("utf-8"))
    assert read_text(path) == MIXED
    assert read_text(str(path)) == MIXED


def test_read_text_keeps_line_endings(tmp_path: Path) -> None:
    path = tmp_path / "essay.txt"
    path.write_bytes(b"one\r\ntwo\n")
    assert read_text(path) == "one\r\ntwo\n"


def test_read_text_of_missing_file_is_not_text(tmp_path: Path) -> None:
    with pytest.raises(NotText, match="no such file") as caught:
        read_text(tmp_path / "gone.txt")
    assert caught.value.path == str(tmp_path / "gone.txt")


def test_read_text_of_directory_is_not_text(tmp_path: Path) -> None:
    with pytest.raises(NotText, match="is a directory"):
        read_text(tmp_path)


@pytest.mark.skipif(
    not hasattr(os, "geteuid") or os.geteuid() == 0,
    reason="root can read a file whatever its permissions",
)
def test_read_text_of_unreadable_file_is_not_text(tmp_path: Path) -> None:
    path = tmp_path / "secret.txt"
    path.write_text("hidden")
    path.chmod(0)
    try:
        with pytest.raises(NotText, match="permission denied"):
            read_text(path)
    finally:
        path.chmod(0o644)


def test_read_text_of_file_over_the_limit_is_not_text(tmp_path: Path) -> None:
    path = tmp_path / "big.txt"
    path.write_bytes(b"x" * 101)
    with pytest.raises(NotText, match="larger than the limit") as caught:
        read_text(path, max_bytes=100)
    assert "101" in caught.value.reason
    assert "100" in caught.value.reason


def test_read_text_of_file_at_the_limit_is_read(tmp_path: Path) -> None:
    path = tmp_path / "exact.txt"
    path.write_bytes(b"x" * 100)
    assert read_text(path, max_bytes=100) == "x" * 100


def test_read_text_of_binary_file_is_not_text(tmp_path: Path) -> None:
    path = tmp_path / "data.txt"
    path.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    with pytest.raises(NotText, match="binary"):
        read_text(path)


def test_read_bytes_reads_what_a_file_holds_within_the_limit(tmp_path: Path) -> None:
    from doublet.skipped import NotText
    from doublet.sources import read_bytes

    file = tmp_path / "a.txt"
    file.write_bytes(b"x" * 1000)
    assert read_bytes(file) == b"x" * 1000
    assert read_bytes(file, max_bytes=1000) == b"x" * 1000
    with pytest.raises(NotText, match="larger than the limit"):
        read_bytes(file, max_bytes=999)
    status = read_bytes("/proc/self/status")  # a regular file that says it holds 0 bytes
    assert b"Name:" in status
    with pytest.raises(NotText, match="larger than the limit"):
        read_bytes("/proc/self/status", max_bytes=10)
