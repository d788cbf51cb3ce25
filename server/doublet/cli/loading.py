"""From command-line paths to engine documents, with reasons for every file left out."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from doublet.engine.document import Document
from doublet.engine.modes import Mode, detect_mode_name, mode_by_name
from doublet.sources import NotText, Skipped, discover, read_text


class UsageError(Exception):
    """A mistake in how the command was called; the message is shown as is."""


@dataclass(frozen=True)
class Thresholds:
    """Command-line overrides of a mode's thresholds (None keeps the mode's own)."""

    noise: int | None = None
    guarantee: int | None = None
    min_length: int | None = None

    def apply(self, mode: Mode) -> Mode:
        try:
            return mode.with_thresholds(
                noise=self.noise, guarantee=self.guarantee, min_length=self.min_length
            )
        except ValueError as exc:
            raise UsageError(str(exc)) from None


@dataclass
class Loaded:
    documents: list[Document] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)


def choose_mode(mode_name: str, path: Path, thresholds: Thresholds) -> Mode:
    name = detect_mode_name(path.name) if mode_name == "auto" else mode_name
    try:
        mode = mode_by_name(name)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    return thresholds.apply(mode)


def load(
    paths: Sequence[str],
    mode_name: str,
    thresholds: Thresholds,
    progress: Callable[[Iterable[Path]], Iterable[Path]] | None = None,
) -> Loaded:
    """Read and fingerprint every document under ``paths``.

    A path that does not exist, or a file named directly that is not text, is a
    usage error; files found inside folders that cannot be read are skipped
    with their reason.
    """
    for given in paths:
        if not Path(given).exists():
            raise UsageError(f"no such file or directory: {given}")
    named = {str(Path(p)) for p in paths if not Path(p).is_dir()}
    files = list(discover(paths))
    loaded = Loaded()
    for path in progress(files) if progress else files:
        try:
            text = read_text(path)
        except NotText as exc:
            if str(path) in named:
                raise UsageError(f"cannot read {path}: {exc.reason}") from None
            loaded.skipped.append(Skipped(str(path), exc.reason))
            continue
        document = Document(str(path), text, choose_mode(mode_name, path, thresholds))
        try:
            document.fingerprints  # noqa: B018 - computed now, while the text is at hand
        except ValueError as exc:  # e.g. code with no known lexer
            if str(path) in named:
                raise UsageError(f"cannot read {path}: {exc}") from None
            loaded.skipped.append(Skipped(str(path), str(exc)))
            continue
        document.forget()
        loaded.documents.append(document)
    return loaded
