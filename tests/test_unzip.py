"""Unpacking a download: nothing leaves the folder, nothing grows without bound."""

from __future__ import annotations

import io
import stat
import zipfile
from pathlib import Path

import pytest

from doublet import unzip


def build(members: list[tuple[str | zipfile.ZipInfo, bytes]]) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in members:
            z.writestr(name, data)
    return out.getvalue()


def unpacked(tmp_path: Path, data: bytes) -> tuple[Path, dict[str, str]]:
    archive = tmp_path / "download.zip"
    archive.write_bytes(data)
    target = tmp_path / "out"
    skipped = unzip.unpack(archive, target)
    return target, {s.path: s.reason for s in skipped}


def files_under(folder: Path) -> list[str]:
    return sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file())


def test_names_that_would_leave_the_folder_are_skipped(tmp_path: Path) -> None:
    data = build(
        [
            ("ok/essay.txt", b"fine"),
            ("../escape.txt", b"x"),
            ("a/../../escape2.txt", b"x"),
            ("/absolute.txt", b"x"),
            ("C:\\windows.txt", b"x"),
            ("back\\slash.txt", b"kept, as a folder"),
        ]
    )
    target, skipped = unpacked(tmp_path, data)
    assert files_under(target) == ["back/slash.txt", "ok/essay.txt"]
    assert set(skipped) == {
        "../escape.txt",
        "a/../../escape2.txt",
        "/absolute.txt",
        "C:\\windows.txt",
    }
    assert all(r == "a name that would leave the folder" for r in skipped.values())
    assert not (tmp_path / "escape.txt").exists()


def encrypted(data: bytes, name: str) -> bytes:
    """The archive with ``name`` flagged encrypted (bit 0 of the general purpose flags)
    in its local header and its central directory entry, as a password would leave it."""
    raw = bytearray(data)
    for signature, flag_at, name_at in ((b"PK\x03\x04", 6, 30), (b"PK\x01\x02", 8, 46)):
        at = raw.find(signature)
        while at >= 0:
            if raw[at + name_at : at + name_at + len(name)] == name.encode():
                raw[at + flag_at] |= 0x1
            at = raw.find(signature, at + 1)
    return bytes(raw)


def test_links_special_files_and_encrypted_members_are_skipped(tmp_path: Path) -> None:
    link = zipfile.ZipInfo("link.txt")
    link.external_attr = (stat.S_IFLNK | 0o777) << 16
    fifo = zipfile.ZipInfo("pipe")
    fifo.external_attr = (stat.S_IFIFO | 0o644) << 16
    data = build(
        [(link, b"/etc/passwd"), (fifo, b""), ("plain.txt", b"text"), ("secret.txt", b"x")]
    )
    target, skipped = unpacked(tmp_path, encrypted(data, "secret.txt"))
    assert files_under(target) == ["plain.txt"]
    assert skipped == {
        "link.txt": "a symbolic link",
        "pipe": "not a regular file",
        "secret.txt": "encrypted",
    }


def test_sizes_are_counted_as_written_not_as_declared(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(unzip, "MAX_MEMBER_BYTES", 10_000)
    monkeypatch.setattr(unzip, "MAX_TOTAL_BYTES", 25_000)
    data = build(
        [
            ("bomb.txt", b"\0" * 1_000_000),  # deflates to about a kilobyte
            ("a.txt", b"a" * 9_000),
            ("b.txt", b"b" * 9_000),
            ("c.txt", b"c" * 9_000),
        ]
    )
    target, skipped = unpacked(tmp_path, data)
    assert files_under(target) == ["a.txt", "b.txt"]
    assert skipped == {
        "bomb.txt": "unpacks to more than 0 MB",
        "c.txt": "the archive unpacks to more than 0 GB",
    }


def test_nested_zips_open_in_place_a_few_levels_deep(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(unzip, "MAX_DEPTH", 2)
    level3 = build([("deep.txt", b"three")])
    level2 = build([("two.txt", b"two"), ("inner.zip", level3)])
    level1 = build([("student/project.zip", level2), ("student/not-a-zip.zip", b"plain bytes")])
    target, skipped = unpacked(tmp_path, level1)
    assert files_under(target) == [
        "student/not-a-zip.zip",  # kept as a file: discovery passes .zip files over
        "student/project.zip/two.txt",
    ]
    assert skipped == {"student/project.zip/inner.zip": "an archive nested more than 2 deep"}


def test_a_damaged_member_is_skipped_and_the_rest_unpacked(tmp_path: Path) -> None:
    data = bytearray(build([("good.txt", b"good " * 100), ("bad.txt", b"bad " * 1000)]))
    body = data.find(b"bad.txt") + len(b"bad.txt")
    data[body + 5 : body + 15] = b"\xff" * 10  # inside bad.txt's compressed bytes
    target, skipped = unpacked(tmp_path, bytes(data))
    assert files_under(target) == ["good.txt"]
    assert skipped["bad.txt"].startswith("damaged in the archive")


def test_two_members_of_one_name_keep_the_first(tmp_path: Path) -> None:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as z:
        z.writestr("essay.txt", b"first")
        with pytest.warns(UserWarning):
            z.writestr("essay.txt", b"second")
        z.writestr("essay.txt/inner.txt", b"a file where a folder is")
    target, skipped = unpacked(tmp_path, out.getvalue())
    assert (target / "essay.txt").read_bytes() == b"first"
    assert set(skipped.values()) == {"another member of the archive has this name"}
    assert len(skipped) == 2


def test_not_a_zip_is_an_error_with_the_reason(tmp_path: Path) -> None:
    archive = tmp_path / "x.zip"
    archive.write_bytes(b"PK\x03\x04 but nothing else")
    with pytest.raises(unzip.UnzipError, match="not a zip archive"):
        unzip.unpack(archive, tmp_path / "out")


def test_members_zipfile_cannot_bound_are_refused_and_long_names_skipped(
    tmp_path: Path,
) -> None:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as z:
        z.writestr("packed.txt", b"\0" * 100_000, compress_type=zipfile.ZIP_BZIP2)
        z.writestr("lz.txt", b"\0" * 100_000, compress_type=zipfile.ZIP_LZMA)
        z.writestr("x" * 300 + ".txt", b"a name no file system takes")
        z.writestr("sub\\", b"")  # a folder, as some Windows tools write it
        z.writestr("sub\\a.txt", b"inside")
        z.writestr("ok.txt", b"fine")
    target, skipped = unpacked(tmp_path, out.getvalue())
    assert files_under(target) == ["ok.txt", "sub/a.txt"]
    assert skipped["packed.txt"] == skipped["lz.txt"]
    assert skipped["packed.txt"].startswith("compressed in a way that cannot be read safely")
    assert skipped["x" * 300 + ".txt"].startswith("cannot be written (File name too long)")


def test_a_member_declaring_a_size_beyond_the_limit_is_not_opened(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = build([("big.txt", b"a" * 5_000), ("s.txt", b"s")])
    monkeypatch.setattr(unzip, "MAX_MEMBER_BYTES", 1_000)
    opened = []
    real_open = zipfile.ZipFile.open

    def watched(self, info, *args, **kwargs):
        opened.append(getattr(info, "filename", info))
        return real_open(self, info, *args, **kwargs)

    monkeypatch.setattr(zipfile.ZipFile, "open", watched)
    target, skipped = unpacked(tmp_path, data)
    assert files_under(target) == ["s.txt"] and set(skipped) == {"big.txt"}
    assert opened == ["s.txt"]  # the declared size was enough to refuse it
