#!/usr/bin/env python3
"""Best cost per control window of controller searches, as an SVG plot.

Reads the `--stats-json` files of `sinew-cli optimize` runs and draws, for
each, the cost of every window that went on (solid) and of the searches of
windows that were searched again after a backtrack (dots and a dashed line
per attempt). Out of backtracks, where the pass that first got furthest
took over, the solid line is that pass's. Python's standard library only.

  scripts/plot-search-cost.py OUT.svg "seed 2=bt2.json" "run=run.json" [--title TEXT] [--ymax C]
"""
import json
import math
import sys
from xml.sax.saxutils import escape

COLOURS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b"]
W, H, LEFT, RIGHT, TOP, BOTTOM = 760, 380, 60, 20, 40, 50


def searches(path):
    """The windows that went on (window -> cost) and the superseded searches."""
    with open(path) as f:
        stats = json.load(f)
    final, runs = {}, []
    first_reach = {}  # window -> the windows that went on when the search first got that far
    for r in stats["windows"]:
        w, cost, back = r["window"] + 1, r["cost"], r.get("back_to", -1)
        if r.get("furthest_good"):
            # Out of backtracks: the pass that first got to window `back` goes on.
            runs.append([(v, final[v]) for v in (w - 1,) if v in final] + [(w, cost)])
            final = dict(first_reach.get(back, final))
        elif 0 <= back <= r["window"]:
            # Windows back_to+1 .. w are searched again: their last searches go dashed.
            runs.append([(v, final[v]) for v in range(back + 1, w) if v in final] + [(w, cost)])
            for v in range(back + 1, w):
                final.pop(v, None)
        elif back < 0:
            final[w] = cost
            first_reach.setdefault(w, dict(final))
    return sorted(final.items()), runs


def nice_step(raw):
    """1, 2, 2.5 or 5 times a power of ten, at least `raw`."""
    power = 10.0 ** math.floor(math.log10(raw))
    return next(m * power for m in (1, 2, 2.5, 5, 10) if m * power >= raw)


def main(argv):
    args, title, ymax = [], "Best cost per control window", None
    i = 1
    while i < len(argv):
        if argv[i] == "--title":
            title, i = argv[i + 1], i + 2
        elif argv[i] == "--ymax":
            ymax, i = float(argv[i + 1]), i + 2
        else:
            args.append(argv[i])
            i += 1
    if len(args) < 2:
        sys.exit(__doc__)
    out, inputs = args[0], []
    for spec in args[1:]:
        if "=" not in spec:
            sys.exit(f"plot-search-cost: '{spec}': expected LABEL=STATS.json")
        label, path = spec.split("=", 1)
        try:
            inputs.append((label, *searches(path)))
        except (OSError, ValueError, KeyError) as e:
            sys.exit(f"plot-search-cost: {path}: not a stats file of optimize ({e})")
    for label, final, runs in inputs:
        if not final and not runs:
            sys.exit(f"plot-search-cost: '{label}': the search has no windows to plot")
    xmax = max(w for _, final, runs in inputs for w, _ in final + [p for r in runs for p in r])
    top = ymax or 1.1 * max(c for _, final, runs in inputs for _, c in final + [p for r in runs for p in r])
    sx = lambda w: LEFT + (w - 1) / max(xmax - 1, 1) * (W - LEFT - RIGHT)
    sy = lambda c: TOP + (1 - min(c, top) / top) * (H - TOP - BOTTOM)
    svg = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" font-family="sans-serif" font-size="12">',
           f'<rect width="{W}" height="{H}" fill="white"/>',
           f'<text x="{W / 2}" y="20" text-anchor="middle" font-size="14">{escape(title)}</text>']
    tick = nice_step(top / 5)
    top = tick * -(-top // tick)
    for k in range(int(round(top / tick)) + 1):
        c = tick * k
        svg.append(f'<line x1="{LEFT}" x2="{W - RIGHT}" y1="{sy(c):.1f}" y2="{sy(c):.1f}" stroke="#ddd"/>')
        svg.append(f'<text x="{LEFT - 6}" y="{sy(c) + 4:.1f}" text-anchor="end">{c:.2g}</text>')
    step = max(1, round(xmax / 10))
    for w in range(1, xmax + 1, step):
        svg.append(f'<text x="{sx(w):.1f}" y="{H - BOTTOM + 16}" text-anchor="middle">{w}</text>')
    svg.append(f'<text x="{W / 2}" y="{H - 12}" text-anchor="middle">control window</text>')
    svg.append(f'<text x="16" y="{H / 2}" transform="rotate(-90 16 {H / 2})" text-anchor="middle">best cost</text>')
    for n, (label, final, runs) in enumerate(inputs):
        colour = COLOURS[n % len(COLOURS)]
        for run in runs:
            pts = " ".join(f"{sx(w):.1f},{sy(c):.1f}" for w, c in run)
            svg.append(f'<polyline points="{pts}" fill="none" stroke="{colour}" stroke-dasharray="4 3" opacity="0.6"/>')
            w, c = run[-1]
            svg.append(f'<circle cx="{sx(w):.1f}" cy="{sy(c):.1f}" r="4" fill="none" stroke="{colour}"/>')
        pts = " ".join(f"{sx(w):.1f},{sy(c):.1f}" for w, c in final)
        svg.append(f'<polyline points="{pts}" fill="none" stroke="{colour}" stroke-width="2"/>')
        y = TOP + 8 + 16 * n
        svg.append(f'<line x1="{LEFT + 10}" x2="{LEFT + 34}" y1="{y}" y2="{y}" stroke="{colour}" stroke-width="2"/>')
        svg.append(f'<text x="{LEFT + 40}" y="{y + 4}">{escape(label)}</text>')
    y = TOP + 8 + 16 * len(inputs)
    svg.append(f'<line x1="{LEFT + 10}" x2="{LEFT + 34}" y1="{y}" y2="{y}" stroke="#555" stroke-dasharray="4 3"/>')
    svg.append(f'<text x="{LEFT + 40}" y="{y + 4}">searches that sent the search back (circle: where)</text>')
    svg.append("</svg>")
    with open(out, "w") as f:
        f.write("\n".join(svg) + "\n")


if __name__ == "__main__":
    main(sys.argv)
