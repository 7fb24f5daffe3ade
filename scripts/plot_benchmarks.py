#!/usr/bin/env python3
"""Turns the benchmarks' JSON output into the README's plots and table.

    ./build/benchmarks/linrec_bench --benchmark_out=rows.json --benchmark_out_format=json
    ./build/benchmarks/tensor_bench --benchmark_out=tensor.json --benchmark_out_format=json
    python3 scripts/plot_benchmarks.py rows.json tensor.json --out docs

(console output saved with --benchmark_counters_tabular=true reads too)

writes docs/latency_vs_length.svg (latency against T at 1024 channels: linrec, the sequential
loop and the bytes / copy-bandwidth floor, log-log), docs/bandwidth_vs_size.svg (achieved
bandwidth against problem size, one series per layout, with the copy roofline measured in the
same run) and prints a Markdown table of every fp32 forward shape.

Python 3 standard library only: the plots are SVG written by hand, so no plotting package is
needed to reproduce them.
"""

import argparse
import json
import math
import re
import sys
from pathlib import Path

FLOOR_US = 6.0  # issue 3's floor: a launch and a few dependent steps cannot take less
BYTES_PER_ELEMENT = 12  # fp32: a and b read, h written


SUFFIXES = {"k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12, "m": 1e-3, "u": 1e-6, "n": 1e-9}


def number(text):
    """A console counter value: 1.78897k, 0.5467, 2.20609m."""
    if text and text[-1] in SUFFIXES:
        return float(text[:-1]) * SUFFIXES[text[-1]]
    return float(text)


def parse_console(text):
    """Runs from console output written with --benchmark_counters_tabular=true: a header row
    naming the counters, then one row per run (name, time, unit, CPU time, unit, iterations,
    counters in header order)."""
    runs, counters = [], []
    for line in text.splitlines():
        fields = line.split()
        if fields[:4] == ["Benchmark", "Time", "CPU", "Iterations"]:
            counters = fields[4:]
        elif counters and len(fields) == 6 + len(counters) and fields[2] in ("ns", "us", "ms", "s"):
            run = {"name": fields[0], "run_type": "iteration"}
            try:
                run.update({c: number(v) for c, v in zip(counters, fields[6:])})
            except ValueError:
                continue  # a string counter, or an error row
            runs.append(run)
    return runs


def load(paths):
    """Every benchmark run (not aggregate) of every file, by name; a later file's run of the same
    name replaces an earlier one's. Files are Google Benchmark JSON (--benchmark_out_format=json)
    or its tabular console output."""
    runs = {}
    for path in paths:
        text = Path(path).read_text()
        benchmarks = json.loads(text).get("benchmarks", []) if text.lstrip().startswith("{") else parse_console(text)
        for b in benchmarks:
            if b.get("run_type", "iteration") != "iteration":
                continue
            runs[b["name"].split("/iterations:")[0].split("/manual_time")[0]] = b
    return runs


def parse_shape(name):
    """(kind, layout, dims) from a benchmark name, or None.

    linrec_bench: kind/rows:R/T:L; tensor_bench: kind/[B:b,T:t,C:c] or kind/[T:t,B:b,C:c]."""
    m = re.fullmatch(r"([a-z_0-9]+)/rows:(\d+)/T:(\d+)", name)
    if m:
        return m.group(1), "rows", {"B": int(m.group(2)), "T": int(m.group(3)), "C": 1}
    m = re.fullmatch(r"([a-z_0-9]+)/\[([A-Z]):(\d+),([A-Z]):(\d+),([A-Z]):(\d+)\]", name)
    if m:
        dims = {m.group(2): int(m.group(3)), m.group(4): int(m.group(5)), m.group(6): int(m.group(7))}
        layout = "[" + ",".join(m.group(i) for i in (2, 4, 6)) + "]"
        return m.group(1), layout, dims
    return None


def elements(dims):
    return dims["B"] * dims["T"] * dims["C"]


class Svg:
    """A log-log chart: axes with decade ticks, polyline series with markers, a legend."""

    COLORS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#17becf"]

    def __init__(self, title, xlabel, ylabel, xs, ys, width=720, height=460):
        self.w, self.h = width, height
        self.left, self.right, self.top, self.bottom = 80, 190, 40, 60
        lo = lambda v: 10 ** math.floor(math.log10(min(v)))
        hi = lambda v: 10 ** math.ceil(math.log10(max(v)))
        self.x0, self.x1 = lo(xs), hi(xs)
        self.y0, self.y1 = lo(ys), hi(ys)
        self.parts = [
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
            f'font-family="sans-serif" font-size="12">',
            f'<rect width="{width}" height="{height}" fill="white"/>',
            f'<text x="{width / 2 - self.right / 2 + self.left / 2}" y="22" text-anchor="middle" '
            f'font-size="14">{title}</text>',
        ]
        self._axes(xlabel, ylabel)
        self.legend = []

    def px(self, x):
        span = math.log10(self.x1) - math.log10(self.x0)
        return self.left + (math.log10(x) - math.log10(self.x0)) / span * (self.w - self.left - self.right)

    def py(self, y):
        span = math.log10(self.y1) - math.log10(self.y0)
        return self.h - self.bottom - (math.log10(y) - math.log10(self.y0)) / span * (self.h - self.top - self.bottom)

    def _axes(self, xlabel, ylabel):
        l, r, t, b = self.left, self.w - self.right, self.top, self.h - self.bottom
        p = self.parts
        for decade, pos, horizontal in self._ticks():
            if horizontal:
                p.append(f'<line x1="{pos}" y1="{t}" x2="{pos}" y2="{b}" stroke="#ddd"/>')
                p.append(f'<text x="{pos}" y="{b + 16}" text-anchor="middle">{self._label(decade)}</text>')
            else:
                p.append(f'<line x1="{l}" y1="{pos}" x2="{r}" y2="{pos}" stroke="#ddd"/>')
                p.append(f'<text x="{l - 6}" y="{pos + 4}" text-anchor="end">{self._label(decade)}</text>')
        p.append(f'<rect x="{l}" y="{t}" width="{r - l}" height="{b - t}" fill="none" stroke="black"/>')
        p.append(f'<text x="{(l + r) / 2}" y="{self.h - 18}" text-anchor="middle">{xlabel}</text>')
        p.append(f'<text transform="translate(18 {(t + b) / 2}) rotate(-90)" text-anchor="middle">{ylabel}</text>')

    def _ticks(self):
        for lo, hi, horizontal in ((self.x0, self.x1, True), (self.y0, self.y1, False)):
            d = lo
            while d <= hi * 1.0001:
                yield d, (self.px(d) if horizontal else self.py(d)), horizontal
                d *= 10

    @staticmethod
    def _label(v):
        exponent = round(math.log10(v))
        return f"{v:g}" if -2 <= exponent <= 4 else f"1e{exponent}"

    def series(self, label, points, dashed=False, marker=True):
        color = self.COLORS[len(self.legend) % len(self.COLORS)]
        points = sorted(points)
        coords = " ".join(f"{self.px(x):.1f},{self.py(y):.1f}" for x, y in points)
        dash = ' stroke-dasharray="6 4"' if dashed else ""
        self.parts.append(f'<polyline points="{coords}" fill="none" stroke="{color}" stroke-width="2"{dash}/>')
        if marker:
            for x, y in points:
                self.parts.append(f'<circle cx="{self.px(x):.1f}" cy="{self.py(y):.1f}" r="3.5" fill="{color}"/>')
        self.legend.append((label, color, dashed))

    def write(self, path):
        x = self.w - self.right + 14
        for i, (label, color, dashed) in enumerate(self.legend):
            y = self.top + 14 + 20 * i
            dash = ' stroke-dasharray="6 4"' if dashed else ""
            self.parts.append(f'<line x1="{x}" y1="{y}" x2="{x + 24}" y2="{y}" stroke="{color}" stroke-width="2"{dash}/>')
            self.parts.append(f'<text x="{x + 30}" y="{y + 4}">{label}</text>')
        Path(path).write_text("\n".join(self.parts + ["</svg>", ""]))


def latency_plot(runs, out):
    """Latency against T at batch 1, 1024 channels: linrec, the sequential loop, the floor."""
    series = {"linrec": [], "sequential_loop": [], "floor": []}
    for name, run in runs.items():
        shape = parse_shape(name)
        if not shape or shape[1] != "[B,T,C]" or shape[2]["B"] != 1 or shape[2]["C"] != 1024:
            continue
        kind, _, dims = shape
        if kind in ("linrec", "sequential_loop"):
            series[kind].append((dims["T"], run["median_us"]))
        if kind == "linrec" and "copy_GBps" in run:
            bytes_moved = BYTES_PER_ELEMENT * elements(dims)
            series["floor"].append((dims["T"], max(bytes_moved / (run["copy_GBps"] * 1e3), FLOOR_US)))
    if not series["linrec"]:
        return False
    xs = [x for s in series.values() for x, _ in s]
    ys = [y for s in series.values() for _, y in s]
    chart = Svg("Latency against sequence length, [1, T, 1024] fp32 (H200)", "T (time steps)", "median time per call (µs)", xs, ys)
    chart.series("linrec", series["linrec"])
    if series["sequential_loop"]:
        chart.series("sequential loop", series["sequential_loop"])
    if series["floor"]:
        chart.series("max(bytes / copy, 6 µs)", series["floor"], dashed=True, marker=False)
    chart.write(Path(out) / "latency_vs_length.svg")
    return True


def bandwidth_plot(runs, out):
    """Achieved bandwidth against bytes moved, one series per layout, and the copy's."""
    by_layout, copy = {}, {}
    for name, run in runs.items():
        shape = parse_shape(name)
        if not shape or shape[0] != "linrec" or "GBps" not in run:
            continue
        _, layout, dims = shape
        bytes_moved = BYTES_PER_ELEMENT * elements(dims)
        by_layout.setdefault(layout, []).append((bytes_moved, run["GBps"]))
        if "copy_GBps" in run:
            copy[bytes_moved] = run["copy_GBps"]
    if not by_layout:
        return False
    xs = [x for s in by_layout.values() for x, _ in s]
    ys = [y for s in by_layout.values() for _, y in s] + list(copy.values())
    chart = Svg("Achieved bandwidth (read + written), fp32 forward (H200)", "bytes moved per call", "GB/s", xs, ys)
    names = {"rows": "time-contiguous rows", "[B,T,C]": "[B, T, C]", "[T,B,C]": "[T, B, C]"}
    for layout, points in sorted(by_layout.items()):
        chart.series(names.get(layout, layout), points)
    if copy:
        chart.series("device-to-device copy", list(copy.items()), dashed=True)
    chart.write(Path(out) / "bandwidth_vs_size.svg")
    return True


def table(runs):
    """A Markdown table of every fp32 forward and backward linrec shape."""
    lines = ["| benchmark | median | GB/s | fraction of copy |", "| --- | --- | --- | --- |"]
    for name, run in sorted(runs.items()):
        shape = parse_shape(name)
        if not shape or shape[0] not in ("linrec", "linrec_reverse", "linrec_backward") or "median_us" not in run:
            continue
        lines.append(f"| {name} | {run['median_us']:.1f} µs | {run.get('GBps', float('nan')):.0f} | "
                     f"{run.get('copy_fraction', float('nan')):.2f} |")
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("json", nargs="+", help="Google Benchmark JSON (--benchmark_out_format=json) or tabular "
                        "console output (--benchmark_counters_tabular=true); later files override earlier runs")
    parser.add_argument("--out", default="docs", help="folder for the SVG files (default: docs)")
    args = parser.parse_args()
    runs = load(args.json)
    Path(args.out).mkdir(parents=True, exist_ok=True)
    if not latency_plot(runs, args.out):
        print("no [1, T, 1024] linrec runs: latency_vs_length.svg not written", file=sys.stderr)
    if not bandwidth_plot(runs, args.out):
        print("no linrec runs with GB/s: bandwidth_vs_size.svg not written", file=sys.stderr)
    print(table(runs))


if __name__ == "__main__":
    main()
