"""Indexing progress, throttled: at most one report per interval, the latest never lost."""

from __future__ import annotations

import asyncio
import threading

from doublet.lsp.folders import Throttled


def run_reports(script, interval: float = 0.05) -> list[tuple[int, int]]:
    """Runs ``script(report)`` in a thread, as indexing does; what was sent, in order."""

    async def main() -> list[tuple[int, int]]:
        sent: list[tuple[int, int]] = []
        report = Throttled(asyncio.get_running_loop(), lambda d, t: sent.append((d, t)), interval)
        worker = threading.Thread(target=script, args=(report,))
        worker.start()
        while worker.is_alive():
            await asyncio.sleep(0.01)
        await asyncio.sleep(3 * interval)  # anything held is due by now
        report.stop()
        return sent

    return asyncio.run(main())


def test_quick_reports_are_thinned_and_the_last_one_always_sent() -> None:
    sent = run_reports(lambda report: [report(done, 1000) for done in range(1, 1001)])
    assert sent[0] == (1, 1000) and sent[-1] == (1000, 1000)
    assert len(sent) <= 5, sent
    assert [d for d, _ in sent] == sorted({d for d, _ in sent})


def test_a_held_report_is_sent_while_a_slow_file_is_read() -> None:
    """8 quick files, then one that takes long: "8 of 9" shows while it is read."""
    seen_during_slow_file: list[list[tuple[int, int]]] = []

    def script(report) -> None:
        for done in range(1, 9):
            report(done, 9)
        threading.Event().wait(0.3)  # the slow file
        seen_during_slow_file.append(list(sent_so_far))
        report(9, 9)

    sent_so_far: list[tuple[int, int]] = []

    async def main() -> list[tuple[int, int]]:
        report = Throttled(
            asyncio.get_running_loop(), lambda d, t: sent_so_far.append((d, t)), 0.05
        )
        worker = threading.Thread(target=script, args=(report,))
        worker.start()
        while worker.is_alive():
            await asyncio.sleep(0.01)
        report.stop()
        return sent_so_far

    sent = asyncio.run(main())
    assert seen_during_slow_file[0][-1] == (8, 9)
    assert sent[-1] == (9, 9)


def test_nothing_held_is_sent_after_the_end() -> None:
    async def main() -> list[tuple[int, int]]:
        sent: list[tuple[int, int]] = []
        report = Throttled(asyncio.get_running_loop(), lambda d, t: sent.append((d, t)), 0.05)
        report(1, 10)
        report(2, 10)  # held
        report.stop()
        await asyncio.sleep(0.15)
        return sent

    assert asyncio.run(main()) == [(1, 10)]
