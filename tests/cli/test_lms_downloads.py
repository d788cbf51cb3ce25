"""The teacher's download as input: a Moodle- and a Canvas-style .zip of real answers.

Built in the tests from the Clough & Stevenson answers (students g0pA … g4pE,
tasks a and d), some as .docx and .pdf, scanned by the real command: the
download is recognised, each student's files are one group that never flags
itself, the copied answers are found, and `--format students` sums it up.
"""

from __future__ import annotations

import csv
import io
import json
import zipfile
from pathlib import Path

import pytest

from tests.commands import doublet
from tests.documents import make_docx, make_pdf

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "tests" / "data" / "clough-stevenson"
TASKS = ("a", "d")


def answers() -> dict[str, dict[str, str]]:
    """student -> task -> text, and the category of each answer."""
    students: dict[str, dict[str, str]] = {}
    for task in TASKS:
        for path in sorted(CORPUS.glob(f"g*_task{task}.txt")):
            student = path.name.split("_")[0]
            students.setdefault(student, {})[task] = path.read_text("utf-8", "replace")
    return students


def categories() -> dict[tuple[str, str], str]:
    rows = csv.DictReader((CORPUS / "file_information.csv").open(encoding="utf-8"))
    return {(r["File"].split("_")[0], r["Task"]): r["Category"] for r in rows}


def as_file(text: str, kind: str) -> bytes:
    if kind == "docx":
        return make_docx(text.split("\n"))
    if kind == "pdf":  # a line of the PDF per ~80 characters: as a word processor would
        # the standard Helvetica of a minimal PDF has Latin-1 only: typographic quotes go
        plain = text.translate(str.maketrans("‘’“”–—", "''\"\"--"))
        plain = plain.encode("latin-1", "replace").decode("latin-1")
        words, lines, line = plain.split(), [], ""
        for word in words:
            if len(line) + len(word) > 80:
                lines.append(line)
                line = ""
            line = f"{line} {word}".strip()
        return make_pdf([[*lines, line]])
    return text.encode("utf-8")


def moodle_zip(path: Path) -> None:
    """A folder per student; task a as .docx, task d as .pdf; one student hands in the
    same essay twice (as .docx and .txt); the sources sit beside, as a teacher adds them."""
    with zipfile.ZipFile(path, "w") as z:
        for number, (student, tasks) in enumerate(sorted(answers().items()), 1):
            folder = f"{student} Surname_{1000 + number}_assignsubmission_file_"
            z.writestr(f"{folder}/essay_a.docx", as_file(tasks["a"], "docx"))
            z.writestr(f"{folder}/essay_d.pdf", as_file(tasks["d"], "pdf"))
            if number == 1:
                z.writestr(f"{folder}/essay_a_final.txt", as_file(tasks["a"], "txt"))
        for task in TASKS:
            z.writestr(f"orig_task{task}.txt", (CORPUS / f"orig_task{task}.txt").read_bytes())


def canvas_zip(path: Path) -> None:
    """Flat files named lastfirst_user_submission_file; late ones marked; one student's
    work inside a zip of its own."""
    with zipfile.ZipFile(path, "w") as z:
        for number, (student, tasks) in enumerate(sorted(answers().items()), 1):
            name = f"surname{student.lower()}"
            late = "_LATE" if number % 4 == 0 else ""
            stem = f"{name}{late}_{2000 + number}_{90000 + number}"
            if number == 2:
                inner = io.BytesIO()
                with zipfile.ZipFile(inner, "w") as nested:
                    nested.writestr("project/a.txt", as_file(tasks["a"], "txt"))
                    nested.writestr("project/d.docx", as_file(tasks["d"], "docx"))
                z.writestr(f"{stem}_project.zip", inner.getvalue())
                continue
            z.writestr(f"{stem}_task_a.docx", as_file(tasks["a"], "docx"))
            z.writestr(f"{stem}_task_d-1.pdf", as_file(tasks["d"], "pdf"))


def scanned(archive: Path, *options: str) -> tuple[dict, str]:
    run = doublet("scan", str(archive), "--format", "json", "--no-progress", *options)
    assert run.returncode == 0, run.stderr
    return json.loads(run.stdout), run.stderr


def student_of_path(document: dict) -> str:
    return document["group"]


@pytest.fixture(scope="module")
def downloads(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("lms")
    moodle, canvas = folder / "moodle.zip", folder / "canvas.zip"
    moodle_zip(moodle)
    canvas_zip(canvas)
    return {"moodle": moodle, "canvas": canvas}


def plagiarised_pairs_found(data: dict, student_of: dict[int, str]) -> None:
    """Every plagiarised answer of the two tasks pairs with the source it copied."""
    category = categories()
    paths = {d["id"]: d["path"] for d in data["documents"]}
    linked = {(p["a"], p["b"]) for p in data["pairs"]} | {(p["b"], p["a"]) for p in data["pairs"]}
    sources = {
        t: next(i for i, p in paths.items() if p.endswith(f"orig_task{t}.txt")) for t in TASKS
    }
    checked = 0
    for doc_id, student in student_of.items():
        name = paths[doc_id].rsplit("/", 1)[-1]
        task = "a" if name.startswith(("essay_a", "a.")) or "_task_a" in name else "d"
        if category[(student, task)] in ("cut", "light", "heavy"):
            assert (doc_id, sources[task]) in linked, f"{paths[doc_id]} not paired with its source"
            checked += 1
    assert checked >= 20


def test_a_moodle_download_is_one_submission_per_student(downloads: dict[str, Path]) -> None:
    data, stderr = scanned(downloads["moodle"])
    assert "is a Moodle download: one submission per student" in stderr
    documents = data["documents"]
    students = {d["group"] for d in documents if "group" in d}
    assert len(students) == len(answers()) == 19
    assert all(s.endswith(")") and " Surname (" in s for s in students)  # name (number)
    kinds = {d["path"].rsplit(".", 1)[-1] for d in documents}
    assert {"docx", "pdf", "txt"} <= kinds
    assert all(d["path"].startswith(str(downloads["moodle"]) + "/") for d in documents)
    group = {d["id"]: d.get("group") for d in documents}
    for pair in data["pairs"]:  # no student's own files flag each other ...
        assert group[pair["a"]] is None or group[pair["a"]] != group[pair["b"]]
    # ... though the student who handed in one essay twice would be their own top pair
    run = doublet("scan", str(downloads["moodle"]), "--groups", "none", "--format", "json")
    ungrouped = json.loads(run.stdout)
    folder = [d["path"].split("/")[-2] for d in ungrouped["documents"]]
    own = [p for p in ungrouped["pairs"] if folder[p["a"]] == folder[p["b"]]]
    assert len(own) == 1 and own[0]["similarity"] == 1.0
    student_of = {d["id"]: d["group"].split(" ")[0] for d in documents if "group" in d}
    plagiarised_pairs_found(data, student_of)


def test_a_canvas_download_with_a_nested_zip(downloads: dict[str, Path]) -> None:
    data, stderr = scanned(downloads["canvas"])
    assert "is a Canvas download" in stderr
    documents = data["documents"]
    nested = [d for d in documents if "_project.zip/project/" in d["path"]]
    assert len(nested) == 2, "the zip inside the download was opened"
    assert len({d["group"] for d in nested}) == 1
    assert len({d["group"] for d in documents}) == 19
    group = {d["id"]: d["group"] for d in documents}
    assert all(group[p["a"]] != group[p["b"]] for p in data["pairs"])
    # copied answers between students are found: the top pair is two plagiarised answers
    category = {(student.lower(), task): c for (student, task), c in categories().items()}
    student = {d["id"]: d["group"].removeprefix("surname").split(" ")[0] for d in documents}
    for pair in data["pairs"][:10]:
        name = documents[pair["a"]]["path"].rsplit("/", 1)[-1]
        task = "a" if "_task_a" in name or name == "a.txt" else "d"
        assert category[(student[pair["a"]], task)] != "non"
        assert category[(student[pair["b"]], task)] != "non"


def test_a_download_unpacked_by_hand_opens_its_zips_too(
    downloads: dict[str, Path], tmp_path: Path
) -> None:
    folder = tmp_path / "canvas"
    with zipfile.ZipFile(downloads["canvas"]) as z:
        z.extractall(folder)
    data, stderr = scanned(folder, "--no-index")
    assert "is a Canvas download" in stderr
    nested = [d for d in data["documents"] if "_project.zip/project/" in d["path"]]
    assert len(nested) == 2 and nested[0]["path"].startswith(f"{folder}/")
    assert sorted(p.name for p in folder.iterdir())[0].endswith(".docx")  # left as it was
    assert not (folder / ".doublet").exists()


def test_students_csv_sums_up_each_student(downloads: dict[str, Path]) -> None:
    run = doublet("scan", str(downloads["moodle"]), "--format", "students", "--no-progress")
    assert run.returncode == 0, run.stderr
    rows = list(csv.DictReader(io.StringIO(run.stdout)))
    assert len(rows) == 19 + 2  # the students, and the two sources on their own
    by_name = {r["student"]: r for r in rows}
    first = next(r for name, r in by_name.items() if name.startswith("g0pA "))
    assert first["documents"] == "3"
    highest = [float(r["highest_similarity"]) for r in rows]
    assert highest == sorted(highest, reverse=True)
    for row in rows:
        if float(row["highest_similarity"]) > 0:
            assert row["closest"] in row["partners"].split(" (")[0] or row["partners"].startswith(
                row["closest"]
            )


def test_a_zip_that_is_not_one_is_a_clear_error(tmp_path: Path) -> None:
    fake = tmp_path / "submissions.zip"
    fake.write_bytes(b"not a zip at all")
    run = doublet("scan", str(fake))
    assert run.returncode == 2
    assert "not a zip archive" in run.stderr


def test_earlier_years_are_matched_but_never_among_themselves(tmp_path: Path) -> None:
    shared = (CORPUS / "orig_taska.txt").read_text("utf-8")
    new, old = tmp_path / "2025", tmp_path / "2024"
    new.mkdir()
    old.mkdir()
    (new / "copier.txt").write_text(shared, "utf-8")
    (new / "honest.txt").write_text((CORPUS / "g0pA_taskb.txt").read_text("utf-8"), "utf-8")
    (old / "first.txt").write_text(shared, "utf-8")
    (old / "second.txt").write_text(shared, "utf-8")
    archive = tmp_path / "2024.zip"
    with zipfile.ZipFile(archive, "w") as z:
        z.write(old / "first.txt", "first.txt")
        z.write(old / "second.txt", "second.txt")
    for given in (str(old), str(archive)):
        data, _ = scanned(new, "--archive", given, "--no-index")
        paths = [d["path"] for d in data["documents"]]
        names = [p.rsplit("/", 1)[-1] for p in paths]
        pairs = {frozenset((names[p["a"]], names[p["b"]])) for p in data["pairs"]}
        assert pairs == {
            frozenset(("copier.txt", "first.txt")),
            frozenset(("copier.txt", "second.txt")),
        }
    # an archive inside the scanned folder: the folder stays a workspace
    inside = tmp_path / "course"
    (inside / "2024").mkdir(parents=True)
    for name in ("first.txt", "second.txt"):
        (inside / "2024" / name).write_text(shared, "utf-8")
    (inside / "copier.txt").write_text(shared, "utf-8")
    data, _ = scanned(inside, "--archive", str(inside / "2024"), "--no-index")
    paths = [d["path"] for d in data["documents"]]
    assert sorted(tuple(sorted((paths[p["a"]], paths[p["b"]]))) for p in data["pairs"]) == sorted(
        [
            (f"{inside}/2024/first.txt", f"{inside}/copier.txt"),
            (f"{inside}/2024/second.txt", f"{inside}/copier.txt"),
        ]
    )


def test_a_report_of_a_download_names_nobody_when_anonymized(
    downloads: dict[str, Path], tmp_path: Path
) -> None:
    out = tmp_path / "report.html"
    run = doublet("report", str(downloads["moodle"]), "-o", str(out), "--anonymize")
    assert run.returncode == 0, run.stderr
    page = out.read_text("utf-8")
    assert "Surname" not in page and "assignsubmission" not in page
    assert "student-019" in page and "student-020" not in page


def test_what_a_hostile_download_tries_is_undone(tmp_path: Path) -> None:
    shared = (CORPUS / "orig_taska.txt").read_text("utf-8")
    download = tmp_path / "canvas.zip"
    with zipfile.ZipFile(download, "w") as z:
        # a student hides a copied essay behind a .gitignore inside their project zip
        inner = io.BytesIO()
        with zipfile.ZipFile(inner, "w") as nested:
            nested.writestr(".gitignore", "*\n")
            nested.writestr("essay.txt", shared)
        z.writestr("smithann_1001_5001_project.zip", inner.getvalue())
        z.writestr("jonesbob_1002_5002_essay.txt", shared)
        z.writestr("kimcara_1004_5004_essay.txt", "Her own words entirely. " * 20)
    data, _ = scanned(download)
    paths = [d["path"] for d in data["documents"]]
    assert any(p.endswith("project.zip/essay.txt") for p in paths), "the .gitignore hid nothing"
    assert len(data["pairs"]) == 1


def test_a_name_a_spreadsheet_would_run_is_written_as_text() -> None:
    from doublet.cli.report import render_students_csv

    data = {
        "documents": [
            {"id": 0, "path": "=HYPERLINK(1)/a.txt", "group": "=HYPERLINK(1)"},
            {"id": 1, "path": "+b.txt"},
        ],
        "pairs": [{"a": 0, "b": 1, "similarity": 0.5}],
    }
    rows = list(csv.reader(io.StringIO(render_students_csv(data))))
    assert [r[0] for r in rows[1:]] == ["'+b.txt", "'=HYPERLINK(1)"]
    assert rows[1][3] == "'=HYPERLINK(1)"


def test_a_path_named_twice_is_scanned_once_or_refused(tmp_path: Path) -> None:
    folder = tmp_path / "work"
    folder.mkdir()
    (folder / "a.txt").write_text("Some words. " * 20, "utf-8")
    run = doublet("scan", str(folder), "--archive", str(folder), "--no-index")
    assert run.returncode == 2 and "named both as a path and as --archive" in run.stderr
    run = doublet("scan", str(folder), str(folder), "--no-index", "--no-progress")
    assert run.returncode == 0 and "Scanned 1 documents" in run.stdout


def test_a_report_left_in_the_folder_is_not_scanned_next_time(tmp_path: Path) -> None:
    folder = tmp_path / "work"
    folder.mkdir()
    text = (CORPUS / "orig_taskb.txt").read_text("utf-8")
    (folder / "a.txt").write_text(text, "utf-8")
    (folder / "b.txt").write_text(text, "utf-8")
    assert doublet("report", ".", "--no-index", cwd=folder).returncode == 0
    assert (folder / "doublet-report.html").is_file()
    data, stderr = scanned(folder, "--no-index")
    assert "doublet-report.html: a Doublet report" in stderr
    assert len(data["pairs"]) == 1


def test_top_level_groups_with_an_archive_outside_the_folder(tmp_path: Path) -> None:
    text = (CORPUS / "orig_taska.txt").read_text("utf-8")
    files = ["cur/alice/a1.txt", "cur/alice/a2.txt", "cur/bob/b.txt", "old/o.txt"]
    for name in files:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text, "utf-8")
    cur, old = tmp_path / "cur", tmp_path / "old"
    data, _ = scanned(cur, "--archive", str(old), "--groups", "top-level", "--no-index")
    paths = [d["path"].rsplit(str(tmp_path) + "/", 1)[-1] for d in data["documents"]]
    assert [d.get("group", "").rsplit("/", 2)[-2:] for d in data["documents"][:3]] == [
        ["cur", "alice"],
        ["cur", "alice"],
        ["cur", "bob"],
    ]
    pairs = {frozenset((paths[p["a"]], paths[p["b"]])) for p in data["pairs"]}
    assert frozenset(("cur/alice/a1.txt", "cur/alice/a2.txt")) not in pairs  # one author
    assert len(pairs) == 5
