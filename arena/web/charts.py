"""Charts drawn on the server as inline SVG: no script and no internet needed to see them,
and no inline style (the pages' security policy allows none)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from html import escape
from typing import Any
from urllib.parse import quote

from markupsafe import Markup

from arena.domain.rating import START


def _scale(
    values: Sequence[float], low: float, high: float, top: float, bottom: float
) -> list[float]:
    span = (high - low) or 1.0
    return [bottom - (v - low) / span * (bottom - top) for v in values]


def sparkline(values: Sequence[float], width: int = 96, height: int = 24) -> Markup:
    """A small line of a rating's recent values; green when it ended up, red when down."""
    if len(values) < 2:
        return Markup("")
    pad = 2.0
    xs = [pad + i * (width - 2 * pad) / (len(values) - 1) for i in range(len(values))]
    ys = _scale(values, min(values), max(values), pad, height - pad)
    points = " ".join(f"{x:.1f},{y:.1f}" for x, y in zip(xs, ys, strict=True))
    trend = "up" if values[-1] > values[0] else "down" if values[-1] < values[0] else "flat"
    label = f"from {values[0]:.0f} to {values[-1]:.0f} over the last {len(values) - 1} games"
    return Markup(
        f'<svg class="spark {trend}" viewBox="0 0 {width} {height}" width="{width}" '
        f'height="{height}" role="img" aria-label="{escape(label)}"><title>{escape(label)}</title>'
        f'<polyline points="{points}"/><circle cx="{xs[-1]:.1f}" cy="{ys[-1]:.1f}" r="2"/></svg>'
    )


LINES = 6  # the colours of a chart's lines (line-0 to line-5 in the style sheet), in turn


def rating_chart(
    history: Sequence[Mapping[str, Any]], width: int = 640, height: int = 220
) -> Markup:
    """A bot's rating after each rated game (a history of ``played_as``, ``before`` and
    ``after``, oldest first), one line per row that played: a bot with hosted versions
    has a line per version, each from its rating before its first game there, so that the
    versions' ratings compare along one time line (x: the games of them all, in order);
    the starting rating dashed, the extremes labelled, the versions named in a legend."""
    if not history:
        return Markup("")
    left, right, top, bottom = 44.0, 10.0, 12.0, height - 24.0
    values = [h["before"] for h in history] + [h["after"] for h in history]
    low = min(*values, START)
    high = max(*values, START)
    margin = max((high - low) * 0.08, 5.0)
    low, high = low - margin, high + margin
    n = len(history)
    xs = [left + i * (width - left - right) / n for i in range(n + 1)]
    lines: dict[str, list[tuple[float, float]]] = {}
    for k, h in enumerate(history):  # change k at xs[k + 1]; a line starts at xs[k]
        points = lines.setdefault(h["played_as"], [(xs[k], h["before"])])
        points.append((xs[k + 1], h["after"]))
    (base,) = _scale([START], low, high, top, bottom)
    ticks = []
    placed: list[float] = []
    for v in (round(min(values)), round(max(values)), round(START)):
        (y,) = _scale([v], low, high, top, bottom)
        if any(abs(y - other) < 14 for other in placed):
            continue  # a label would overlap one already drawn
        placed.append(y)
        ticks.append(
            f'<text x="{left - 6}" y="{y + 4:.1f}" text-anchor="end">{v}</text>'
            f'<line class="grid" x1="{left}" x2="{width - right}" y1="{y:.1f}" y2="{y:.1f}"/>'
        )
    drawn = []
    for i, (name, points) in enumerate(lines.items()):
        ys = _scale([v for _, v in points], low, high, top, bottom)
        at = " ".join(f"{x:.1f},{y:.1f}" for (x, _), y in zip(points, ys, strict=True))
        dots = "".join(
            f'<circle cx="{x:.1f}" cy="{y:.1f}" r="2.5"/>'
            for (x, _), y in zip(points[1:], ys[1:], strict=True)
        ) if n <= 60 else ""  # fmt: skip
        title = (
            f"{name}: from {points[0][1]:.0f} to {points[-1][1]:.0f} over {len(points) - 1} games"
        )
        drawn.append(
            f'<g class="line-{i % LINES}" data-bot="{escape(name)}"><title>{escape(title)}</title>'
            f'<polyline points="{at}"/>{dots}</g>'
        )
        if len(lines) > 1:  # a legend, top right
            drawn.append(
                f'<text class="legend line-{i % LINES}" x="{width - right - 4}" '
                f'y="{top + 12 * (i + 1):.1f}" text-anchor="end">{escape(name)}</text>'
            )
    whose = f" of {len(lines)} versions" if len(lines) > 1 else ""
    label = f"rating over {n} games{whose}: from {values[0]:.0f} to {history[-1]['after']:.0f}"
    return Markup(
        f'<svg class="chart" viewBox="0 0 {width} {height}" role="img" '
        f'aria-label="{escape(label)}"><title>{escape(label)}</title>'
        + "".join(ticks)
        + f'<line class="base" x1="{left}" x2="{width - right}" y1="{base:.1f}" y2="{base:.1f}"/>'
        + "".join(drawn)
        + f'<text x="{left}" y="{height - 6}">game 0</text>'
        + f'<text x="{width - right}" y="{height - 6}" text-anchor="end">game {n}</text>'
        + "</svg>"
    )


def llr_chart(
    history: Sequence[float], lower: float, upper: float, width: int = 640, height: int = 220
) -> Markup:
    """A sequential test's LLR after each pair (x: pairs counted, from 0 where the LLR is
    0), between its two bounds dashed and labelled (reaching the upper accepts H1, the
    lower H0) and the zero line; only numbers are written into it. Without any pair: the
    bounds and a note."""
    left, right, top, bottom = 44.0, 10.0, 12.0, height - 24.0
    values = [0.0, *history]
    low, high = min(*values, lower), max(*values, upper)
    margin = max((high - low) * 0.08, 0.1)
    low, high = low - margin, high + margin
    n = len(history)

    def y_of(v: float) -> float:
        return _scale([v], low, high, top, bottom)[0]

    parts = []
    for value, name, kind, dy in ((upper, "accept H1", "h1", -5), (lower, "accept H0", "h0", 13)):
        y = y_of(value)
        parts.append(
            f'<line class="base bound {kind}" x1="{left}" x2="{width - right}" '
            f'y1="{y:.1f}" y2="{y:.1f}"/>'
            f'<text x="{left - 6}" y="{y + 4:.1f}" text-anchor="end">{value:.2f}</text>'
            f'<text class="bound {kind}" x="{width - right - 4}" y="{y + dy:.1f}" '
            f'text-anchor="end">{name}</text>'
        )
    zero = y_of(0.0)
    parts.append(
        f'<line class="grid" x1="{left}" x2="{width - right}" y1="{zero:.1f}" y2="{zero:.1f}"/>'
        f'<text x="{left - 6}" y="{zero + 4:.1f}" text-anchor="end">0</text>'
    )
    if n:
        xs = [left + i * (width - left - right) / n for i in range(n + 1)]
        ys = _scale(values, low, high, top, bottom)
        points = " ".join(f"{x:.1f},{y:.1f}" for x, y in zip(xs, ys, strict=True))
        parts.append(f'<polyline points="{points}"/>')
        if n <= 60:
            parts += [
                f'<circle cx="{x:.1f}" cy="{y:.1f}" r="2.5"/>'
                for x, y in zip(xs[1:], ys[1:], strict=True)
            ]
        parts.append(
            f'<text x="{left}" y="{height - 6}">pair 0</text>'
            f'<text x="{width - right}" y="{height - 6}" text-anchor="end">pair {n}</text>'
        )
        label = f"LLR after {n} pairs: {history[-1]:.2f}, bounds {lower:.2f} and {upper:.2f}"
    else:
        parts.append(
            f'<text class="note" x="{(left + width - right) / 2:.1f}" y="{zero - 6:.1f}" '
            'text-anchor="middle">no pair yet</text>'
        )
        label = f"no pair yet; bounds {lower:.2f} and {upper:.2f}"
    return Markup(
        f'<svg class="chart llr" viewBox="0 0 {width} {height}" role="img" '
        f'aria-label="{escape(label)}"><title>{escape(label)}</title>' + "".join(parts) + "</svg>"
    )


def progress_bar(finished: int, failed: int, total: int) -> Markup:
    """A run's progress: its finished matches, then its failed ones, out of ``total``,
    stretched across the width it is given."""
    done = 100 * finished / total
    lost = 100 * failed / total
    return Markup(
        '<svg viewBox="0 0 100 1" preserveAspectRatio="none" aria-hidden="true">'
        f'<rect class="finished" width="{done:.2f}" height="1"/>'
        f'<rect class="failed" x="{done:.2f}" width="{lost:.2f}" height="1"/></svg>'
    )


def analysis_chart(
    analysis: Mapping[str, Any], match_id: str, width: int = 640, height: int = 200
) -> Markup:
    """A seat's analysis (arena/read/analyses.py): the expected hand score of each action
    it took, decision by decision (x: its decisions in order, y: points, the zero line
    drawn), and a mark on each of the costliest, linked to that step of the replay and
    titled with what the reference bot would have done; only numbers and action texts
    are written into it, escaped."""
    line, decisions = analysis["line"], analysis["decisions"]
    if not line:
        return Markup("")
    left, right, top, bottom = 44.0, 10.0, 12.0, height - 24.0
    low, high = min(*line, 0.0), max(*line, 0.0)
    margin = max((high - low) * 0.08, 0.25)
    low, high = low - margin, high + margin
    n = len(line)
    xs = [left + (i + 0.5) * (width - left - right) / n for i in range(n)]
    ys = _scale(line, low, high, top, bottom)
    zero = _scale([0.0], low, high, top, bottom)[0]
    parts = [
        f'<line class="grid" x1="{left}" x2="{width - right}" y1="{zero:.1f}" y2="{zero:.1f}"/>'
        f'<text x="{left - 6}" y="{zero + 4:.1f}" text-anchor="end">0</text>'
        f'<text x="{left - 6}" y="{top + 8:.1f}" text-anchor="end">{high:+.1f}</text>'
        f'<text x="{left - 6}" y="{bottom:.1f}" text-anchor="end">{low:+.1f}</text>',
        f'<polyline points="{" ".join(f"{x:.1f},{y:.1f}" for x, y in zip(xs, ys, strict=True))}"/>',
    ]
    for i in analysis["marks"]:
        d = decisions[i]
        about = (
            f"hand {d['hand']}, action {d['step'] + 1}: {d['taken']}; "
            f"best {d['best']}; lost {d['loss']:.2f} points"
        )
        href = f"/matches/{quote(match_id)}?hand={d['hand']}&amp;step={d['step']}"
        parts.append(
            f'<a href="{href}" data-testid="analysis-mark"><circle class="mark" '
            f'cx="{xs[i]:.1f}" cy="{ys[i]:.1f}" r="5"><title>{escape(about)}</title></circle></a>'
        )
    parts.append(
        f'<text x="{left}" y="{height - 6}">decision 1</text>'
        f'<text x="{width - right}" y="{height - 6}" text-anchor="end">decision {n}</text>'
    )
    label = (
        f"seat {analysis['seat']}: the expected hand score of each of its {n} decisions, "
        f"{len(analysis['marks'])} of the costliest marked"
    )
    return Markup(
        f'<svg class="chart analysis" viewBox="0 0 {width} {height}" role="img" '
        f'aria-label="{escape(label)}"><title>{escape(label)}</title>' + "".join(parts) + "</svg>"
    )
