"""Submissions downloaded from a learning management system: who handed in which file.

A teacher's "download all submissions" names each student in the first part of
every path, in a pattern of its own per system. Files of one student are one
submission (a group: they never flag each other). The patterns recognised, on
the first component of a workspace-relative path (a folder, or a file when the
download is flat):

- Moodle: ``Full Name_123456_assignsubmission_file_`` (a folder per student and
  plugin), or ``Full Name_123456_assignsubmission_file_essay.docx`` (flat);
  ``onlinetext`` submissions likewise.
- Canvas: ``lastfirst_123456_7890123_essay.docx``, ``lastfirst_LATE_123456_…``;
  text entries ``lastfirst_123456_text.html``; graded anonymously
  ``anon_ab1Cd_7890123_essay.docx``.
- Blackboard: ``Assignment_username_attempt_2024-03-01-14-05-09_essay.docx``;
  the ``…_attempt_<date>.txt`` beside it (Blackboard's receipt, with what the
  student typed in the submission field) belongs to the student too.
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
        named = found.groupdict()
        student = " ".join((named.get("student") or f"anonymous {named.get('anonymous')}").split())
        number = named.get("user") or (None if named.get("anonymous") else named.get("id"))
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
        re.compile(  # names are lower case letters and digits; "anon" when graded anonymously
            r"(?:(?P<student>[a-z0-9]+)(?:_LATE)?_(?P<user>\d+)_(?:(?P<submission>\d+)_(?P<rest>.+)"
            r"|(?:text|link)\.html)|anon_(?P<anonymous>[A-Za-z0-9]+)_(?P<id>\d+)_.+)\Z",
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
_NUMBER = re.compile(r" \(\d+\)\Z")


def recognise(first_components: Iterable[str]) -> Layout | None:
    """The system whose pattern names most of these top-level entries (folder and file
    names of a download), if it names at least RECOGNISED_SHARE of them."""
    names = [n for n in first_components if not _is_table_of_contents(n)]
    if not names:
        return None
    for layout in sorted(LAYOUTS, key=lambda x: -sum(x.student_of(n) is not None for n in names)):
        students = Counter(  # by name alone: numbers differ where a habit repeats a name
            _NUMBER.sub("", s) for n in names if (s := layout.student_of(n)) is not None
        )
        matched = sum(students.values())
        if matched < RECOGNISED_SHARE * len(names):
            return None
        # a download is many students' work: files that all name one "student" are a
        # naming habit (report_2024_01_notes.txt, test_123_456_main.py), not a download
        if len(students) >= 2 and students.most_common(1)[0][1] <= max(2, matched // 2):
            return layout
    return None


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
    """Whether the file is a system's own listing, not a student's work: an
    ``index.html`` outside every student's folder (Brightspace's table of contents).
    Blackboard's ``…_attempt_<date>.txt`` receipt is kept: it holds what the student
    typed into the submission field, and its own lines are the same for everyone
    (boilerplate)."""
    name = relative_path.rsplit("/", 1)[-1]
    return _is_table_of_contents(name) and student_of(relative_path) is None


def _is_table_of_contents(name: str) -> bool:
    return name.lower() == "index.html"
