#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The test results in a lava-run log, one 'DEFINITION CASE RESULT' a line.

lava-run (without --url) writes its job log to stderr, one YAML flow
mapping {dt, lvl, msg} a line; the entries at level 'results' are the job's results, the
test definitions' cases (definition '0_anonremap', case 'NAME') and LAVA's
own (definition 'lava', case 'job' the job's verdict). Read with Debian's
python3-yaml, which lava-dispatcher depends on.
"""
import sys

import yaml


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: lava-results.py LAVA-RUN-LOG")
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    with open(sys.argv[1], encoding="utf-8", errors="replace") as f:
        for line in f:
            if '"lvl": "results"' not in line:
                continue
            try:
                report(yaml.load(line, Loader=loader))
            except yaml.YAMLError:
                pass  # a target line that only quotes the words


def report(entry):
    if isinstance(entry, dict) and entry.get("lvl") == "results":
        msg = entry.get("msg")
        if isinstance(msg, dict):
            print(msg.get("definition"), msg.get("case"), msg.get("result"))


if __name__ == "__main__":
    main()
