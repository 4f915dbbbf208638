#!/usr/bin/env python3
"""Prints one closing line 'N passed, N failed, N skipped' over meson's test
logs (JSON lines, one object per test) given as arguments."""
import json, sys

counts = {'passed': 0, 'failed': 0, 'skipped': 0}
for path in sys.argv[1:]:
    try:
        lines = open(path).read().splitlines()
    except OSError:
        continue
    for line in lines:
        if not line.strip():
            continue
        result = json.loads(line).get('result')
        if result in ('OK', 'EXPECTEDFAIL'):
            counts['passed'] += 1
        elif result == 'SKIP':
            counts['skipped'] += 1
        else:
            counts['failed'] += 1
print(f"{counts['passed']} passed, {counts['failed']} failed, {counts['skipped']} skipped")
