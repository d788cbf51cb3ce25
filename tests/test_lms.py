"""Who handed in which file, by each system's naming (doublet.lms)."""

from __future__ import annotations

import pytest

from doublet import lms
from doublet.config import DEFAULTS, ConfigError


@pytest.mark.parametrize(
    ("path", "student"),
    [
        ("Jane Doe_123456_assignsubmission_file_/essay.docx", "Jane Doe (123456)"),
        ("Jane  Doe_123456_assignsubmission_onlinetext_/onlinetext.html", "Jane Doe (123456)"),
        ("Jane Doe_123456_assignsubmission_file_essay.docx", "Jane Doe (123456)"),
        ("2024/Jane Doe_123456_assignsubmission_file_/essay.docx", "Jane Doe (123456)"),
        ("doejane_123456_7890123_essay.docx", "doejane (123456)"),
        ("doejane_LATE_123456_7890123_essay-1.docx", "doejane (123456)"),
        ("doejane_123456_text.html", "doejane (123456)"),
        ("anon_ab1Cd_7890123_essay.docx", "anonymous ab1Cd"),
        ("Essay 1_jdoe_attempt_2024-03-01-14-05-09_essay.docx", "jdoe"),
        ("123456-789012 - Jane Doe - Mar 1, 2024 205 PM/essay.docx", "Jane Doe"),
        ("123456-789012 - Jane Doe - Sept. 30, 2024 1105 AM - essay.docx", "Jane Doe"),
        ("essays/g0pA_taska.txt", None),
        ("index.html", None),
    ],
)
def test_each_systems_naming_names_the_student(path: str, student: str | None) -> None:
    assert lms.student_of(path) == student


def test_tables_of_contents_are_not_work_but_receipts_are() -> None:
    assert not lms.is_receipt("Essay 1_jdoe_attempt_2024-03-01-14-05-09.txt")  # typed text
    assert lms.student_of("Essay 1_jdoe_attempt_2024-03-01-14-05-09.txt") == "jdoe"
    assert lms.is_receipt("index.html") and lms.is_receipt("download/index.html")
    assert not lms.is_receipt("123456-789012 - Jane Doe - Mar 1, 2024 205 PM/index.html")


def test_ordinary_folders_are_not_taken_for_downloads() -> None:
    habits = [
        ["essay_2024_1_alice.txt", "essay_2024_1_bob.txt", "essay_2024_1_carol.txt"],
        ["report_2024_01_notes.txt", "report_2024_02_notes.txt", "report_2024_03_notes.txt"],
        ["test_123_456_main.py", "test_123_457_util.py", "test_124_456_io.py"],
        ["lab_1_2_solution.py", "lab_1_3_solution.py", "lab_2_1_solution.py"],
    ]
    for names in habits:
        assert lms.recognise(names) is None, names


def test_a_download_is_recognised_by_most_of_its_entries() -> None:
    moodle = [f"Student {i}_{i}_assignsubmission_file_" for i in range(8)]
    layout = lms.recognise([*moodle, "notes.txt", "index.html"])
    assert layout is not None and layout.name == "Moodle"
    assert lms.recognise([*moodle[:2], "a.txt", "b.txt", "c.txt", "d.txt"]) is None
    assert lms.recognise(["index.html"]) is None
    canvas = [f"name{i}_{i}_{i + 100}_essay.pdf" for i in range(5)]
    assert lms.recognise(canvas).name == "Canvas"


def test_groups_lms_in_the_configuration() -> None:
    config = DEFAULTS.with_overrides({"groups": "lms"}, "test")
    assert config.group_of("doejane_123456_7890123_essay.docx") == "doejane (123456)"
    assert config.group_of("notes.txt") is None
    assert not config.is_included("index.html")
    assert config.is_included("Essay 1_jdoe_attempt_2024-03-01-14-05-09.txt")
    assert DEFAULTS.is_included("index.html")  # only a download's table of contents
    with pytest.raises(ConfigError, match="'lms'"):
        DEFAULTS.with_overrides({"groups": "moodle"}, "test")
