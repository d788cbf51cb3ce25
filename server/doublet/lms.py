"""Submissions downloaded from a learning management system: who handed in which file.

A teacher's "download all submissions" names each student in the first part of
every path, in a pattern of its own per system. Files of one student are one
submission (a group: they never flag each other). The patterns recognised, on
the first component of a workspace-relative path (a folder, or a file when the
download is flat):

- Moodle: ``Full Name_123456_assignsubmission_file_`` (a folder per student and
  plugin), or ``Full Name_123456_assignsubmission_file_essay.docx`` (flat);
  ``onlinetext`` submissions likewise.
- Canvas: ``lastfirst_123456_7890123_essay.docx``, ``lastfirst_LATE_123456_…``.
- Blackboard: ``Assignment_username_attempt_2024-03-01-14-05-09_essay.docx``;
  the ``…_attempt_<date>.txt`` beside it is Blackboard's receipt, not work.
- Brightspace (D2L): ``123456-789012 - Full Name - Mar 1, 2024 205 PM``
  (a folder per submission) or ``… - Mar 1, 2024 205 PM - essay.docx``; its
  ``index.html`` is the download's table of contents, not work.

The student is named by the outermost component of a path that matches, so a
download kept in a folder of its own (``2024/…``) is recognised as well. Pure
functions of paths: no file is read here.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass


@dataclass(frozen=True)
class Layout:
    """One system's naming: the pattern of a path's first component, and the student."""

    name: str
    pattern: re.Pattern[str]
    #: Whether the student's number joins the name (two students may share a name;
    #: Brightspace's number is the submission's, so two attempts would part).
    numbered: bool = False

    def student_of(self, first: str) -> str | None:
        """The student named by a path's first component, or None if it is not one of
        this system's."""
        found = self.pattern.match(first)
        if found is None:
            return None
        student = " ".join(found.group("student").split())
        number = found.groupdict().get("user") or found.groupdict().get("id")
        return f"{student} ({number})" if self.numbered and number else student


LAYOUTS = (
    Layout(
        "Moodle",
        re.compile(
            r"(?P<student>.+?)_(?P<id>\d+)_assignsubmission_(?:file|onlinetext)_(?P<rest>.*)\Z",
            re.S,
        ),
        numbered=True,
    ),
    Layout(
        "Canvas",
        re.compile(
            r"(?P<student>[^_\s]+)(?:_LATE)?_(?P<user>\d+)_(?P<submission>\d+)_(?P<rest>.+)\Z",
            re.S,
        ),
        numbered=True,
    ),
    Layout(
        "Blackboard",
        re.compile(
            r"(?P<assignment>.+)_(?P<student>[^_]+)_attempt_"
            r"(?P<date>\d{4}-\d{2}-\d{2}-\d{2}-\d{2}-\d{2})(?P<rest>(?:_.+)?(?:\.[A-Za-z0-9]+)?)\Z",
            re.S,
        ),
    ),
    Layout(
        "Brightspace",
        re.compile(
            r"(?P<id>\d+-\d+) - (?P<student>.+?) - (?P<date>[A-Z][a-z]{2,8}\.? \d{1,2}, \d{4}"
            r" \d{3,4} ?[AP]M)(?P<rest>(?: - .+)?)\Z",
            re.S,
        ),
    ),
)

#: The share of a download's top-level entries that must follow one system's pattern
#: for the download to be taken as that system's (the rest: stray files).
RECOGNISED_SHARE = 0.6


def recognise(first_components: Iterable[str]) -> Layout | None:
    """The system whose pattern names most of these top-level entries (folder and file
    names of a download), if it names at least RECOGNISED_SHARE of them."""
    names = [n for n in first_components if not _is_table_of_contents(n)]
    if not names:
        return None
    counts = Counter(
        layout.name for name in names for layout in LAYOUTS if layout.student_of(name) is not None
    )
    if not counts:
        return None
    best, count = counts.most_common(1)[0]
    if count < RECOGNISED_SHARE * len(names):
        return None
    return next(layout for layout in LAYOUTS if layout.name == best)


def student_of(relative_path: str) -> str | None:
    """The student a workspace-relative path belongs to under any system's naming, or
    None: the outermost component of the path that some system's pattern matches (a
    download may sit in a folder of its own, or beside earlier years')."""
    for part in relative_path.split("/"):
        for layout in LAYOUTS:
            student = layout.student_of(part)
            if student is not None:
                return student
    return None


def is_receipt(relative_path: str) -> bool:
    """Whether the file is a system's own listing, not a student's work: Blackboard's
    ``…_attempt_<date>.txt`` receipt; an ``index.html`` outside every student's folder
    (Brightspace's table of contents)."""
    name = relative_path.rsplit("/", 1)[-1]
    if _is_table_of_contents(name):
        return student_of(relative_path) is None
    found = LAYOUTS[2].pattern.match(name)
    return found is not None and found.group("rest").lower() == ".txt"


def _is_table_of_contents(name: str) -> bool:
    return name.lower() == "index.html"
