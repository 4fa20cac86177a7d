"""The report as one self-contained HTML page: inline CSS, inline JS, figures as data URIs.

Responses are hostile model output. Every text goes through `html.escape`; the failure browser's
rows travel as JSON in a `<script type="application/json">` block with `<`, `>` and `&` written
as `\\u003c`-style escapes (so no `</script>` can close it), and its script builds the rows with
`textContent`, never `innerHTML`. The Content-Security-Policy allows only the page's own script
(by its hash) and fetches nothing, so an injection that got past both would still not run.
"""

from __future__ import annotations

import base64
import hashlib
import json
from html import escape
from typing import Any

from sebench.reports.plots import DPI
from sebench.reports.report import Comparison, Report, RunView
from sebench.reports.runs import Run
from sebench.reports.tables import Cell, compare_tables

CSS = """
:root { --ink:#1f2933; --muted:#6b7785; --line:#e3e7ec; --bg:#f6f8fa; --accent:#3d85c6; }
* { box-sizing: border-box; }
body { margin:0; font:15px/1.5 -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif;
  color:var(--ink); background:var(--bg); }
header { background:#1f2933; color:#fff; padding:22px 32px; }
header h1 { margin:0 0 4px; font-size:24px; font-weight:600; }
header .meta { color:#c5ced8; font-size:13px; }
nav { background:#fff; border-bottom:1px solid var(--line); padding:8px 32px; position:sticky;
  top:0; z-index:2; font-size:14px; }
nav a { color:var(--accent); text-decoration:none; margin-right:18px; }
main { max-width:1180px; margin:0 auto; padding:8px 32px 48px; }
section { background:#fff; border:1px solid var(--line); border-radius:8px; padding:18px 22px;
  margin:20px 0; }
h2 { margin:0 0 12px; font-size:20px; font-weight:600; }
h3 { margin:18px 0 8px; font-size:16px; font-weight:600; }
p.note, .note { color:var(--muted); font-size:13px; }
table { border-collapse:collapse; font-size:14px; }
th, td { padding:5px 10px; border-bottom:1px solid var(--line); text-align:left;
  vertical-align:top; }
th { background:#f0f3f6; font-weight:600; }
td.num, th.num { text-align:right; font-variant-numeric:tabular-nums; white-space:nowrap; }
tr.group td { background:#fafbfc; color:var(--muted); font-size:12px; text-transform:uppercase;
  letter-spacing:.04em; }
.paper { color:var(--muted); }
.spread { color:var(--muted); font-size:12px; }
.missing { color:#b0b8c1; font-style:italic; }
.up { color:#1e7f46; font-weight:600; } .down { color:#c0392b; font-weight:600; }
img.figure { max-width:100%; height:auto; display:block; margin:8px 0; }
#failure-list { max-height:720px; overflow:auto; padding-right:4px; }
.heat-wrap { display:inline-block; max-width:100%; max-height:520px; overflow:auto;
  border:1px solid var(--line); }
.heat th { position:sticky; top:0; z-index:1; }
.heat td.cell { text-align:center; min-width:78px; font-variant-numeric:tabular-nums; }
.heat td.fn { font-family:ui-monospace, "DejaVu Sans Mono", monospace; font-size:13px; }
.badge { display:inline-block; padding:1px 8px; border-radius:10px; font-size:12px; color:#fff;
  white-space:nowrap; }
.status-done { background:#2e9e5b; } .status-failed { background:#d9534f; }
.status-pending, .status-other { background:#9aa5b1; }
.filters { display:flex; gap:14px; flex-wrap:wrap; align-items:center; margin-bottom:10px; }
.filters label { font-size:13px; color:var(--muted); }
.filters select { font-size:14px; padding:3px 6px; margin-left:4px; }
#failure-count { font-size:13px; color:var(--muted); }
#failure-list details { border:1px solid var(--line); border-radius:6px; margin:6px 0;
  background:#fff; }
#failure-list summary { cursor:pointer; padding:7px 10px; display:flex; gap:10px;
  align-items:center; flex-wrap:wrap; }
#failure-list .task { font-family:ui-monospace, "DejaVu Sans Mono", monospace; font-size:13px; }
#failure-list .fns { color:var(--muted); font-size:12px; }
#failure-list .body { padding:4px 12px 12px; }
#failure-list h4 { margin:10px 0 4px; font-size:13px; color:var(--muted); font-weight:600; }
pre { background:#f6f8fa; border:1px solid var(--line); border-radius:4px; padding:8px 10px;
  white-space:pre-wrap; word-break:break-word; font-size:12.5px; max-height:360px;
  overflow:auto; margin:0; }
"""

# The failure browser: rows from the JSON block, filtered by the selects, built with textContent.
SCRIPT = """
(function () {
  var rows = JSON.parse(document.getElementById('failure-data').textContent);
  var LIMIT = 300;
  var list = document.getElementById('failure-list');
  var count = document.getElementById('failure-count');
  var selects = {
    verdict: document.getElementById('filter-verdict'),
    fn: document.getElementById('filter-function'),
    run: document.getElementById('filter-run')
  };
  function options(select, values) {
    values.forEach(function (v) {
      var o = document.createElement('option'); o.value = v; o.textContent = v;
      select.appendChild(o);
    });
  }
  function uniq(get) {
    var seen = {}; rows.forEach(function (r) { [].concat(get(r)).forEach(function (v) {
      seen[v] = true; }); });
    return Object.keys(seen).sort();
  }
  options(selects.verdict, uniq(function (r) { return r.verdict; }));
  options(selects.fn, uniq(function (r) { return r.functions; }));
  options(selects.run, uniq(function (r) { return r.run + ' | ' + r.arm; }));
  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) { e.className = cls; }
    if (text !== undefined && text !== null) { e.textContent = String(text); }
    return e;
  }
  function block(parent, title, text) {
    parent.appendChild(el('h4', null, title));
    parent.appendChild(el('pre', null, text === null || text === undefined || text === ''
      ? '(not available)' : text));
  }
  function render() {
    var v = selects.verdict.value, f = selects.fn.value, a = selects.run.value;
    var shown = rows.filter(function (r) {
      return (!v || r.verdict === v) && (!f || r.functions.indexOf(f) >= 0) &&
        (!a || r.run + ' | ' + r.arm === a);
    });
    list.replaceChildren();
    shown.slice(0, LIMIT).forEach(function (r) {
      var d = el('details', 'failure'); d.dataset.verdict = r.verdict;
      var s = el('summary');
      var badge = el('span', 'badge', r.verdict);
      badge.style.background = COLOURS[r.verdict] || '#777777';
      s.appendChild(badge);
      s.appendChild(el('span', 'task', r.task + ' #' + r.sample));
      s.appendChild(el('span', 'fns', r.functions.join(', ')));
      s.appendChild(el('span', 'note', r.run + ' | ' + r.arm));
      d.appendChild(s);
      var body = el('div', 'body');
      block(body, 'Error', r.error || '(none recorded)');
      block(body, 'Task', r.prompt);
      block(body, 'Response', r.response);
      block(body, 'Extracted code', r.code);
      d.appendChild(body);
      list.appendChild(d);
    });
    count.textContent = shown.length + ' of ' + rows.length + ' failures' +
      (shown.length > LIMIT ? ' (first ' + LIMIT + ' shown: narrow the filters)' : '');
  }
  Object.keys(selects).forEach(function (k) { selects[k].addEventListener('change', render); });
  render();
})();
"""


def render_html(report: Report) -> str:
    from sebench.reports.plots import VERDICT_COLOURS

    script = f"var COLOURS = {_json_for_script(VERDICT_COLOURS)};\n{SCRIPT}"
    digest = base64.b64encode(hashlib.sha256(script.encode()).digest()).decode()
    policy = (
        "default-src 'none'; img-src data:; style-src 'unsafe-inline'; "
        f"script-src 'sha256-{digest}'; base-uri 'none'; form-action 'none'"
    )
    names = ", ".join(view.run.name for view in report.runs)
    sections = [_run_section(i, view, report) for i, view in enumerate(report.runs)]
    sections += [_comparison_section(i, c) for i, c in enumerate(report.comparisons)]
    sections.append(_failure_section(report))
    nav = "".join(
        f'<a href="#run{i + 1}">{escape(view.run.name)}</a>' for i, view in enumerate(report.runs)
    )
    if report.comparisons:
        nav += '<a href="#compare1">Comparison</a>'
    nav += '<a href="#failures">Failures</a>'
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{escape(policy)}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>SE-Bench report: {escape(names)}</title>
<style>{CSS}</style>
</head>
<body>
<header><h1>SE-Bench report</h1>
<div class="meta">{escape(names)} &middot; written {escape(report.created)}</div></header>
<nav>{nav}</nav>
<main>
{"".join(sections)}
</main>
<script type="application/json" id="failure-data">{_json_for_script(report.failures)}</script>
<script>{script}</script>
</body>
</html>
"""


def _json_for_script(data: Any) -> str:
    """JSON that cannot end its <script> block: no `<`, `>` or `&` survive as such."""
    text = json.dumps(data, ensure_ascii=False)
    for char, code in (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026")):
        text = text.replace(char, code)
    return text.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")


def _run_section(index: int, view: RunView, report: Report) -> str:
    run = view.run
    library = run.library
    library_text = str(library.get("kind", "?"))
    if library.get("seed") is not None:
        library_text += f" (seed {library['seed']})"
    if library.get("hash"):
        library_text += f", hash {str(library['hash'])[:12]}"
    parts = [
        f'<section id="run{index + 1}"><h2>{escape(run.name)}</h2>',
        f'<p class="note">model <b>{escape(run.model)}</b> &middot; library '
        f"{escape(library_text)} &middot; {len(run.arms)} arms &middot; folder "
        f"{escape(str(run.root))}</p>",
        "<h3>The paper's table</h3>",
        _paper_table(view),
        '<p class="note">Accuracy (%) is the mean over rollouts of each rollout\'s accuracy, '
        "averaged over the seeds that finished; &plusmn; is the standard deviation over seeds. "
        "&ldquo;paper&rdquo; is the number the recipe expects.</p>",
        "<h3>Verdicts per regime</h3>",
        _figure(view.figures.get("verdicts"), "verdict shares per regime", report),
        _verdict_table(view),
        "<h3>Which functions were internalized</h3>",
        _heatmap(view),
        "<h3>pass@k</h3>",
        _figure(view.figures.get("pass_at_k"), "pass@k per regime", report),
        "<h3>Training</h3>",
        _figure(view.figures.get("training"), "training curves", report)
        if any(a.training for a in run.arms)
        else '<p class="note">No training logs in this run.</p>',
        "<h3>Arms</h3>",
        _arms_table(run),
        "</section>",
    ]
    return "\n".join(parts)


def _percent(value: float | None) -> str:
    return "&ndash;" if value is None else f"{100 * value:.1f}"


def _cell(cell: Cell | None) -> str:
    if cell is None or cell.arms == 0 and cell.expected is None:
        return '<td class="num missing">&ndash;</td><td class="num paper"></td>'
    if cell.mean is None:
        waiting = escape(", ".join(cell.waiting) or "not run")
        measured = f'<span class="missing">{waiting}</span>' if cell.arms else "&ndash;"
    else:
        measured = _percent(cell.mean)
        if cell.spread is not None:
            measured += f' <span class="spread">&plusmn; {100 * cell.spread:.1f}</span>'
        if len(cell.values) < cell.arms:
            measured += f' <span class="spread">({len(cell.values)}/{cell.arms} seeds)</span>'
    paper = "" if cell.expected is None else f"{cell.expected:.1f}"
    return f'<td class="num">{measured}</td><td class="num paper">{paper}</td>'


def _paper_table(view: RunView) -> str:
    splits = view.run.splits()
    head = "".join(
        f'<th class="num">{escape(s.capitalize())}</th><th class="num paper">paper</th>'
        for s in splits
    )
    body = []
    for bound in (True, False):
        rows = [r for r in view.table if r.bound is bound]
        if not rows:
            continue
        label = "reference rows (bounds)" if bound else "regimes"
        body.append(f'<tr class="group"><td colspan="{1 + 2 * len(splits)}">{label}</td></tr>')
        for row in rows:
            cells = "".join(_cell(row.cells.get(s)) for s in splits)
            body.append(f"<tr><td>{escape(row.regime)}</td>{cells}</tr>")
    return f'<table class="paper-table"><tr><th>Regime</th>{head}</tr>{"".join(body)}</table>'


def _verdict_table(view: RunView) -> str:
    from sebench.reports.tables import VERDICT_ORDER

    if not view.verdicts:
        return '<p class="note">No finished arms.</p>'
    kinds = [k for k in VERDICT_ORDER if any(c.get(k) for c in view.verdicts.values())]
    head = "".join(f'<th class="num">{escape(k)}</th>' for k in kinds)
    rows = []
    for regime, counts in view.verdicts.items():
        total = sum(counts.values()) or 1
        cells = "".join(f'<td class="num">{100 * counts.get(k, 0) / total:.1f}</td>' for k in kinds)
        rows.append(
            f'<tr><td>{escape(regime)}</td><td class="num">{sum(counts.values())}</td>{cells}</tr>'
        )
    return (
        f'<table><tr><th>Regime</th><th class="num">samples</th>{head}</tr>{"".join(rows)}'
        '</table><p class="note">Share of samples (%) with each verdict, all splits and seeds.</p>'
    )


def _heat_colour(value: float) -> str:
    """White at 0 to green at 1, through a pale yellow: readable with dark text throughout."""
    low, mid, high = (253, 236, 234), (252, 243, 207), (120, 200, 140)
    a, b, t = (low, mid, value * 2) if value < 0.5 else (mid, high, (value - 0.5) * 2)
    r, g, bl = (round(x + (y - x) * t) for x, y in zip(a, b, strict=True))
    return f"rgb({r},{g},{bl})"


def _heatmap(view: RunView) -> str:
    matrix = view.matrix
    if not matrix.functions:
        return '<p class="note">No per-function results (no finished arms).</p>'
    head = "".join(f'<th class="num">{escape(r)}</th>' for r in matrix.regimes)
    rows = []
    for function in matrix.functions:
        cells = []
        for regime in matrix.regimes:
            correct, samples = matrix.cells.get((function, regime), (0, 0))
            if not samples:
                cells.append('<td class="cell missing">&ndash;</td>')
                continue
            value = correct / samples
            cells.append(
                f'<td class="cell" style="background:{_heat_colour(value)}" '
                f'title="{correct}/{samples} correct">{100 * value:.0f}</td>'
            )
        rows.append(f'<tr><td class="fn">{escape(function)}</td>{"".join(cells)}</tr>')
    return (
        f'<div class="heat-wrap"><table class="heat"><tr><th>Function</th>{head}</tr>'
        f'{"".join(rows)}</table></div><p class="note">{len(matrix.functions)} library '
        "functions: accuracy (%) of the tasks that use each one, all splits and seeds "
        "(hover a cell for the counts). Green: internalized; &ndash;: no task.</p>"
    )


def _arms_table(run: Run) -> str:
    rows = []
    for arm in run.arms:
        status = arm.status if arm.status in ("done", "failed", "pending") else "other"
        accuracy = _percent(arm.accuracy)
        problems = escape("; ".join(arm.problems))
        rows.append(
            f"<tr><td>{escape(arm.regime)}</td><td>{escape(arm.split)}</td>"
            f'<td class="num">{escape(str(arm.seed if arm.seed is not None else ""))}</td>'
            f'<td><span class="badge status-{status}">{escape(arm.status)}</span></td>'
            f'<td class="num">{accuracy}</td><td class="note">{problems}</td></tr>'
        )
    return (
        '<table><tr><th>Regime</th><th>Split</th><th class="num">Seed</th><th>Status</th>'
        f'<th class="num">Accuracy</th><th>Problems</th></tr>{"".join(rows)}</table>'
    )


def _figure(png: bytes | None, alt: str, report: Report) -> str:
    if png is None:
        reason = (
            "no data for this figure"
            if report.figures_available
            else "figures need matplotlib: pip install 'sebench[reports]'"
        )
        return f'<p class="note">({escape(reason)})</p>'
    data = base64.b64encode(png).decode()
    # drawn at DPI for sharp screens, shown at its size in inches (96 CSS pixels each), so that
    # every figure's text has the same size on the page
    width = round(int.from_bytes(png[16:20], "big") * 96 / DPI)
    return (
        f'<img class="figure" alt="{escape(alt)}" width="{width}" '
        f'src="data:image/png;base64,{data}">'
    )


def _delta(before: float | None, after: float | None) -> str:
    if before is None or after is None:
        return '<td class="num missing">&ndash;</td>'
    delta = 100 * (after - before)
    kind = "up" if delta > 0.05 else "down" if delta < -0.05 else ""
    return f'<td class="num {kind}">{delta:+.1f}</td>'


def _comparison_section(index: int, comparison: Comparison) -> str:
    a, b = comparison.before, comparison.after
    table = [
        f"<tr><td>{escape(regime)}</td><td>{escape(split)}</td>"
        f'<td class="num">{_percent(ma)}</td><td class="num">{_percent(mb)}</td>'
        f"{_delta(ma, mb)}</tr>"
        for regime, split, ma, mb in compare_tables(a.run, b.run)
    ]
    changes = []
    for change in comparison.functions:
        changes.append(
            f'<tr><td class="fn">{escape(change.function)}</td>'
            f'<td class="num">{_percent(change.before)}</td>'
            f'<td class="num">{_percent(change.after)}</td>{_delta(change.before, change.after)}'
            "</tr>"
        )
    name_a, name_b = escape(a.run.name), escape(b.run.name)
    return f"""<section id="compare{index + 1}"><h2>{name_a} vs {name_b}</h2>
<h3>The paper's table, side by side</h3>
<table><tr><th>Regime</th><th>Split</th><th class="num">{name_a}</th><th class="num">{name_b}</th>
<th class="num">&Delta;</th></tr>{"".join(table)}</table>
<h3>Per function</h3>
<div class="heat-wrap"><table class="heat"><tr><th>Function</th><th class="num">{name_a}</th>
<th class="num">{name_b}</th><th class="num">&Delta;</th></tr>{"".join(changes)}</table></div>
<p class="note">Accuracy (%) over the regimes both runs have, largest change first.</p>
</section>"""


def _failure_section(report: Report) -> str:
    shown, total = len(report.failures), report.failures_total
    capped = f" ({shown} of {total} kept: an equal share per arm)" if shown < total else ""
    return f"""<section id="failures"><h2>Failure browser</h2>
<p class="note">Every sample that was not correct{capped}: the task, the response, the code the
grader extracted, the verdict and its evidence. Click a row to open it.</p>
<div class="filters">
<label>Verdict <select id="filter-verdict"><option value="">all</option></select></label>
<label>Function <select id="filter-function"><option value="">all</option></select></label>
<label>Run / arm <select id="filter-run"><option value="">all</option></select></label>
<span id="failure-count"></span>
</div>
<div id="failure-list"></div>
</section>"""
