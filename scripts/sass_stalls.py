#!/usr/bin/env python3
# sass_stalls.py — where a kernel's warps wait, from Nsight Compute's source page as CSV:
#
#     ncu --section SourceCounters --kernel-name regex:NAME --launch-count 1 -o report ./binary ...
#     ncu --import report.ncu-rep --page source --csv --print-source sass > kernel.csv
#     python3 scripts/sass_stalls.py kernel.csv
#
# Prints the instructions with the most warp-stall samples (with their index in the SASS, so the
# loop or barrier around them can be found), the samples by opcode, and by windows of 40
# instructions. Standard library only.
import collections
import csv
import re
import sys


def number(text):
    return float(text.replace(',', '') or 0)


def main(path):
    rows = list(csv.reader(open(path, newline='')))
    header_at = next(i for i, r in enumerate(rows) if any(c.strip() == 'Source' for c in r))
    header = [c.strip() for c in rows[header_at]]
    source = header.index('Source')
    samples = next(i for i, c in enumerate(header) if c.startswith('Warp Stall Sampling (All'))
    executed = header.index('Instructions Executed') if 'Instructions Executed' in header else None
    sass = []  # (instruction, stall samples, warp instructions executed)
    for r in rows[header_at + 1:]:
        if len(r) <= max(source, samples):
            continue
        try:
            sass.append((r[source].strip(), number(r[samples]), number(r[executed]) if executed is not None else 0))
        except ValueError:
            continue
    total = sum(s for _, s, _ in sass) or 1
    print(f'instructions {len(sass)}, stall samples {total:.0f}')
    print('\n# the 45 instructions with the most stall samples: index, share, executed, instruction')
    for i, (text, s, e) in sorted(enumerate(sass), key=lambda x: -x[1][1])[:45]:
        print(f'{i:5d} {100 * s / total:6.2f}% {e:12.0f}  {text[:110]}')
    print('\n# by opcode')
    by_opcode = collections.Counter()
    for text, s, _ in sass:
        m = re.match(r'(@!?U?P\w+\s+)?([A-Z0-9_.]+)', text)
        by_opcode[m.group(2).split('.')[0] if m else '?'] += s
    for opcode, s in by_opcode.most_common(25):
        print(f'{opcode:14s} {100 * s / total:6.2f}%')
    print('\n# windows of 40 instructions over 0.5 % of the samples: share, executed, first instructions')
    for w in range(0, len(sass), 40):
        window = sass[w:w + 40]
        s = sum(x[1] for x in window)
        if s / total > 0.005:
            e = sum(x[2] for x in window)
            print(f'{w:5d}-{w + 39:5d} {100 * s / total:6.2f}% {e:12.0f}  ' + ' | '.join(x[0][:28] for x in window[:3]))


if __name__ == '__main__':
    main(sys.argv[1])
