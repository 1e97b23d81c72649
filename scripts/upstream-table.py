#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Compare the kernel's selftests with anonremap's scenario library.

One row per selftest test point: the selftest's verdict, anonremap's verdict
for the matching scenario (or variant), and, for merge.c, whether the scenario
asserts the same VMA bounds as the C test (find_vma_procmap + ASSERT_EQ on
vma_start / vma_end, and ASSERT_FALSE(find_vma_procmap)). Exit 1 on any
disagreement or missing scenario.

The map names the scenario of a test point where the name alone does not;
a scenario of "-" says the library holds no translation of that test point
on purpose (a file-backed variant, a part no op can express): the row is
shown as "untranslated" and counted apart, not as agreement. A test name
ending in "*" matches every test point it begins."""
import argparse, json, os, re, sys

def ktap(path):
    rows = []
    for line in open(path, errors="replace"):
        m = re.match(r"^(not ok|ok) \d+ (.*)$", line.rstrip())
        if not m:
            continue
        name, verdict = m.group(2), "pass" if m.group(1) == "ok" else "fail"
        for mark, v in (("# XFAIL", "xfail"), ("# SKIP", "skip")):
            if mark in name:
                verdict = v if m.group(1) == "ok" else "fail"
                # "ok 3 # XFAIL name" (ksft_test_result_xfail) or "ok 19 name
                # # SKIP reason" (kselftest_harness): the reason is not the name
                name = (name[len(mark):] if name.startswith(mark) else name[:name.index(mark)]).strip()
        rows.append((name.strip(), verdict))
    return rows

def c_term_pages(t):
    t = t.strip()
    if t == "page_size":
        return 1
    m = re.fullmatch(r"(\d+)\s*\*\s*page_size|page_size\s*\*\s*(\d+)", t)
    if m:
        return int(m.group(1) or m.group(2))
    return None

def norm_c(expr):
    """(base, pages) of a C address expression like &ptr[5 * page_size]."""
    e = re.sub(r"\((unsigned long|char \*|void \*)\)", "", expr).strip()
    m = re.fullmatch(r"&\s*(\w+)\s*\[(.*)\]", e)
    if m:
        e = m.group(1) + " + " + m.group(2)
    base, pages = None, 0
    for sign, term in re.findall(r"([+-]?)\s*([^+-]+)", e):
        p = c_term_pages(term)
        if p is None:
            if base is not None:
                return ("?", expr)
            base = term.strip()
        else:
            pages += -p if sign == "-" else p
    return (base, pages)

def norm_s(expr):
    base, pages = None, 0
    for sign, term in re.findall(r"([+-]?)([^+-]+)", expr.replace(" ", "")):
        m = re.fullmatch(r"(\d+)p", term)
        if m:
            pages += -int(m.group(1)) if sign == "-" else int(m.group(1))
        elif term == "p":
            pages += -1 if sign == "-" else 1
        else:
            base = term
    return (base, pages)

def resolve_variant(body, variant):
    """Specialise a FIXTURE_VARIANT test body: variant->X becomes 1 or 0,
    if (1) {...} / if (0) {...} keep or drop their block, C ? A : B picks,
    and simple scalar assignments (offset = ...;) are substituted."""
    if variant is None:
        return body
    val = "1" if variant == "forked" else "0"
    body = re.sub(r"variant->\w+", val, body)
    # if (1) { A } else { B } / if (0) ...
    while True:
        m = re.search(r"if \((\d)\) \{", body)
        if not m:
            break
        i, depth = m.end(), 1
        while depth:
            depth += {"{": 1, "}": -1}.get(body[i], 0)
            i += 1
        block = body[m.end():i - 1]
        rest = body[i:]
        els = re.match(r"\s*else \{", rest)
        other = ""
        if els:
            j, depth = els.end(), 1
            while depth:
                depth += {"{": 1, "}": -1}.get(rest[j], 0)
                j += 1
            other = rest[els.end():j - 1]
            rest = rest[j:]
        body = body[:m.start()] + (block if m.group(1) == "1" else other) + rest
    body = re.sub(r"\b([01])\s*\?\s*([^:;]+?)\s*:\s*([^;]+);",
                  lambda m: (m.group(2) if m.group(1) == "1" else m.group(3)) + ";", body)
    for m in re.finditer(r"\b(\w+)\s*=\s*([^;=]+);", body):
        name, value = m.group(1), m.group(2).strip()
        if re.fullmatch(r"[\d\s*+\-]*page_size[\d\s*+\-page_size]*", value):
            tail = body[m.end():]
            body = body[:m.end()] + re.sub(r"\b%s\b" % name, value, tail)
    return body

def c_bounds(src, test, variant=None):
    m = re.search(r"TEST_F\(\w+,\s*%s\)\s*\{(.*?)\n\}" % re.escape(test), src, re.S)
    if not m:
        return None
    body, out = resolve_variant(m.group(1), variant), []
    # statement by statement: find_vma_procmap names the VMA, the two
    # ASSERT_EQs on vma_start and vma_end complete the check
    cur, start = None, None
    for st in re.finditer(r"ASSERT_(TRUE|FALSE)\(find_vma_procmap\(procmap,\s*(.*?)\)\);"
                          r"|ASSERT_EQ\(procmap->query\.vma_(start|end),\s*(.*?)\);", body, re.S):
        if st.group(1) == "FALSE":
            out.append(("unmapped", norm_c(st.group(2))))
        elif st.group(1) == "TRUE":
            cur, start = norm_c(st.group(2)), None
        elif st.group(3) == "start":
            start = norm_c(st.group(4))
        elif cur is not None and start is not None:
            out.append((cur, start, norm_c(st.group(4))))
            start = None
    return out

def s_bounds(scenario):
    out = []
    for st in scenario.get("steps", []):
        if st.get("op") != "expect":
            continue
        if "vma" in st:
            out.append((norm_s(st["vma"]), norm_s(st["start"]), norm_s(st["end"])))
        elif st.get("mapped") is False:
            out.append(("unmapped", norm_s(st["at"])))
    return out

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--src", required=True)
    ap.add_argument("--selftests", required=True)
    ap.add_argument("--library", required=True)
    ap.add_argument("--scenarios", required=True)
    ap.add_argument("--map", required=True)
    ap.add_argument("--binaries", default="merge,mremap_test,mremap_dontunmap",
                    help="the selftests to compare, comma-separated")
    a = ap.parse_args()

    lib = {s["name"]: s for s in json.load(open(a.library))["scenarios"]}
    # (binary, test) -> its scenarios in map order: a test name the binary
    # prints more than once (mseal_test's unsealed, then sealed run) takes
    # the n-th for its n-th line
    explicit = {}
    if os.path.exists(a.map):
        for line in open(a.map):
            if line.strip() and not line.startswith("#"):
                binary, test, scen = line.rstrip("\n").split("\t")
                explicit.setdefault((binary, test), []).append(scen)
    merge_src = open(os.path.join(a.src, "merge.c")).read()
    bad = untranslated = 0
    rows = []
    for binary in a.binaries.split(","):
        path = os.path.join(a.selftests, binary + ".ktap")
        if not os.path.exists(path):
            print(f"{binary}: no output", file=sys.stderr)
            bad += 1
            continue
        seen = {}
        for test, verdict in ktap(path):
            nth = seen[test] = seen.get(test, -1) + 1
            scens = explicit.get((binary, test))
            if scens is None:
                scens = next((v for (b, t), v in explicit.items()
                              if b == binary and t.endswith("*") and test.startswith(t[:-1])), None)
            scen = scens[min(nth, len(scens) - 1)] if scens else None
            if scen is None and binary == "merge":
                parts = test.split(".")
                scen = parts[-1] if len(parts) == 2 else f"{parts[2]}[{parts[1]}]"
            if scen == "-":
                rows.append((binary, test, verdict, "-", "untranslated", "n/a", True))
                untranslated += 1
                continue
            res = lib.get(scen) if scen else None
            ours = res["status"] if res else "missing"
            agree = (verdict in ("pass", "xfail") and ours == "pass") or verdict == ours
            bounds = "n/a"
            if binary == "merge" and res:
                parts = test.split(".")
                cb = c_bounds(merge_src, parts[-1], parts[1] if len(parts) == 3 else None)
                sb = s_bounds(res["scenario"])
                bounds = "same" if cb == sb else "DIFFERENT"
                if cb != sb:
                    agree = False
                    print(f"# {test}: selftest asserts {cb}\n#   scenario asserts {sb}", file=sys.stderr)
            rows.append((binary, test, verdict, scen or "-", ours, bounds, agree))
            bad += not agree
    w = max(len(r[1]) for r in rows) if rows else 10
    print(f"{'selftest':<19} {'test':<{w}} {'verdict':<7} {'anonremap':<12} {'bounds':<9} scenario")
    for b, t, v, s, o, bo, ag in rows:
        print(f"{b:<19} {t:<{w}} {v:<7} {o:<12} {bo:<9} {s}{'' if ag else '   <-- DISAGREES'}")
    n = len(rows) - untranslated
    print(f"\n{n - bad} of {n} rows agree" + ("" if not bad else f"; {bad} disagree") +
          (f"; {untranslated} untranslated" if untranslated else ""))
    return 1 if bad else 0

sys.exit(main())
