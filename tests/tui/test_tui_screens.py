"""The screens driven with Pilot: the batch table, filtering, sorting, the detail screen, the log."""

from __future__ import annotations

from collections import Counter

import diagnose
from tui.app import make_app
from tui.model import from_report
from tui.screens.batch import BatchScreen
from tui.screens.detail import DetailScreen
from tui.widgets.case_table import CaseTable
from tui.widgets.category_counts import CategoryCounts
from tui.widgets.log_view import LogView

SIZE = (140, 40)


async def test_batch_shows_every_case_and_counts_per_category(real_dev, rules):
    app = make_app(real_dev, rules=rules)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, BatchScreen)
        table = screen.query_one(CaseTable)
        assert [table.cases[i].id for i in table.rows] == [c.id for c in real_dev]
        header = str(screen.query_one(CategoryCounts).render())
        for cat, n in Counter(c.category for c in real_dev).items():
            assert f" {cat} {n}" in header
        groups = Counter(c.failure_mode for c in real_dev if c.category == "unknown")
        for mode, n in groups.items():
            assert f"{mode} {n}" in header  # the unknown groups stay visible


async def test_typing_a_filter_narrows_the_table_and_the_counts(real_dev, rules):
    app = make_app(real_dev, rules=rules)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("slash", *"cat:runtime")
        await pilot.pause()
        table = app.screen.query_one(CaseTable)
        shown = [table.cases[i] for i in table.rows]
        want = [c for c in real_dev if c.category == "runtime-assumption"]
        assert [c.id for c in shown] == [c.id for c in want]
        assert f"{len(want)} of {len(real_dev)}" in str(app.screen.query_one(CategoryCounts).render())
        await pilot.press("escape")
        await pilot.pause()
        assert len(table.rows) == len(real_dev)
        await pilot.press("u")
        await pilot.pause()
        assert {table.cases[i].category for i in table.rows} == {"unknown"}


async def test_sorting_by_key_and_by_clicking_a_heading(real_dev, rules):
    app = make_app(real_dev, rules=rules)
    async with app.run_test(size=SIZE) as pilot:
        table = app.screen.query_one(CaseTable)
        await pilot.press("s")  # first column: id
        await pilot.pause()
        ids = [table.cases[i].id for i in table.rows]
        assert ids == sorted(ids)
        await pilot.press("S")
        await pilot.pause()
        assert [table.cases[i].id for i in table.rows] == sorted(ids, reverse=True)
        x = next(x for x in range(SIZE[0]) if table.column_at(x) == "confidence")
        await pilot.click(CaseTable, offset=(x, 0))
        await pilot.pause()
        confs = [table.cases[i].confidence for i in table.rows]
        assert table.sort_column == "confidence"
        assert confs == sorted(confs)


async def test_enter_opens_the_detail_with_what_why_fix(real_dev, rules):
    app = make_app(real_dev, rules=rules)
    want = next(i for i, c in enumerate(real_dev) if c.id == "onnxruntime-resize-trilinear-oob-write")
    async with app.run_test(size=SIZE) as pilot:
        for _ in range(want):
            await pilot.press("down")
        await pilot.press("enter")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, DetailScreen) and screen.case.id == real_dev[want].id
        await app.workers.wait_for_complete()
        await pilot.pause()
        text = str(screen.query_one("#verdict-text").render())
        best = real_dev[want].best
        assert best is not None
        for key in ("what", "why", "fix"):
            assert best[key].split()[0] in text
        assert "Could not check" in text and "no controlled run" in text
        rules_tab = str(screen.query_one("#rules-text").render())
        assert "Matched (1)" in rules_tab and "sanitizer-oob-global-write" in rules_tab
        assert "Skipped" in rules_tab and "needs" in rules_tab
        await pilot.press("escape")
        assert isinstance(app.screen, BatchScreen)


async def test_the_log_highlights_and_jumps_to_the_cited_lines(rules):
    log = "step 1\nstep 2\nRuntimeError: CUDA error: an illegal memory access was encountered\ncompute-sanitizer done\n"
    case = from_report(diagnose.classify_log(log, id="jump"))
    app = make_app([case], rules=rules)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, DetailScreen)  # one case opens straight away
        await pilot.press("l")
        view = app.screen.query_one(LogView)
        cited = sorted(view.cited)
        assert cited == [c.line for c in case.cited] and 3 in cited
        assert view.cursor == cited[0] - 1  # the log opens on the first cited line
        await pilot.press("down", "down", "down")
        await pilot.press("n")
        assert view.cursor == cited[0] - 1  # wraps around to the first one
        strip = view.render_line(view.cursor - int(view.scroll_offset.y))
        assert "illegal memory access" in strip.text and "▶" in strip.text


async def test_markup_and_escape_codes_in_a_log_are_shown_as_text(rules):
    log = (
        "\x1b[1;31mRuntimeError: CUDA error: an illegal memory access was encountered\x1b[0m\n"
        "[bold]not a style[/] and [/] alone and [red on blue]\n"
        "[triton] ptxas said [/bold]\n"
    )
    case = from_report(diagnose.classify_log(log, id="[bold]markup[/]"))
    app = make_app([case], rules=rules)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("l")
        await pilot.pause()
        view = app.screen.query_one(LogView)
        lines = [view.render_line(y).text for y in range(3)]
        # the terminal's colours were taken off as kdiag read the log; markup stays text
        assert "▶ RuntimeError: CUDA error: an illegal memory access" in lines[0] and "␛" not in lines[0]
        assert "[bold]not a style[/] and [/] alone and [red on blue]" in lines[1]
        assert "[triton] ptxas said [/bold]" in lines[2]
        await pilot.press("1")
        await pilot.pause()
        assert "[bold]markup[/]" in str(app.screen.query_one("#verdict-text").render())
        await pilot.press("escape")
        await pilot.pause()
        table = app.screen.query_one(CaseTable)
        assert "[bold]markup[/]" in table.render_line(1).text


async def test_numerics_tab_draws_the_ulp_histogram(numerics_case, rules):
    app = make_app([numerics_case], rules=rules)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("5")
        await pilot.pause()
        text = str(app.screen.query_one("#numerics-text").render())
        hist = numerics_case.run["numerics"]["ulp_hist"]
        top = max(hist, key=hist.get)
        assert "ULP histogram" in text
        line = next(x for x in text.splitlines() if x.strip().startswith(top + " "))
        assert "█" in line and line.rstrip().endswith(str(hist[top]))


async def test_the_command_palette_filters_the_batch(real_dev, rules):
    app = make_app(real_dev, rules=rules)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("ctrl+p")
        await pilot.pause()
        await pilot.press(*"category environment")
        await pilot.pause(0.5)
        await pilot.press("enter")
        await pilot.pause()
        table = app.screen.query_one(CaseTable)
        assert table.rows and {table.cases[i].category for i in table.rows} == {"environment"}


async def test_h_opens_the_rule_help(real_dev, rules):
    from tui.screens.rule_help import RuleHelpScreen

    case = next(c for c in real_dev if c.rule == "ptxas-unknown-arch")
    app = make_app([case], rules=rules)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("h")
        await pilot.pause()
        assert isinstance(app.screen, RuleHelpScreen)
        text = str(app.screen.query_one("Static").render())
        rule = rules.get("ptxas-unknown-arch")
        assert "What it detects" in text and rule.explain.fix.split()[0] in text
        await pilot.press("escape")
        assert isinstance(app.screen, DetailScreen)
