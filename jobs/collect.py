#!/usr/bin/env python3
"""Collect a scaling study's JSON run reports into a table, a CSV and plots.

  jobs/collect.py studies/weak [--csv table.csv] [--plots DIR]
  jobs/collect.py DIR --kind weak|strong     (reports without a study.json)

Prints one row per run: ranks, global grid, time per step, cells/s, parallel
efficiency against the fewest ranks of the same requested CPU share (weak:
t_1 / t_P; strong: t_1 P_1 / (t_P P)), the share of halo communication hidden
behind compute, the CPU share asked for and the share rank 0 ran. Writes the
table as CSV and two PNG plots (efficiency and time per step vs ranks, one
line per CPU share) with matplotlib (Debian: python3-matplotlib).

With the study.json of jobs/study.py, only its points' reports are read and
each point without one is named (its job failed or has not run; exit 1 after
the table); without it, every *.json report in DIR.
"""
import argparse
import csv
import glob
import json
import os
import re
import sys


def warn(text):
    print("collect: " + text, file=sys.stderr)


def requested_share(report):
    """The hybrid.cpu_share a run's deck asked for (a number's text, or auto)."""
    found = re.search(r"^hybrid:\n(?:[ \t]+.*\n)*?[ \t]+cpu_share:[ \t]*([^\s#]+)", report["deck"]["resolved"], re.M)
    return found.group(1) if found else "0"


def share_key(share):
    return (share == "auto", float(share) if share != "auto" else 0.0)


def row(path, share):
    """A table row from the report at `path`, or None (with a warning) where it is unusable."""
    try:
        with open(path) as f:
            report = json.load(f)
        entry = {
            "ranks": report["decomposition"]["ranks"],
            "grid": "x".join(str(c) for c in report["grid"]["cells"]),
            "cells": report["grid"]["global_cells"],
            "s_per_step": report["run"]["seconds_per_step"],
            "cells_per_s": report["run"]["cells_per_second"],
            "hidden_pct": 100.0 * report["halo"]["hidden_fraction"],
            "cpu_share": share if share is not None else requested_share(report),
            "host_share": report["hybrid"]["host_share_rank0"],
            "build": "%s %s" % (report["build"]["commit"], report["build"]["device_space"]),
            "report": os.path.basename(path),
        }
    except (KeyError, ValueError, TypeError) as e:
        warn("skipping %s: not a Strata run report (%s: %s)" % (path, type(e).__name__, e))
        return None
    if not entry["s_per_step"] > 0:
        warn("skipping %s: it timed no step" % path)
        return None
    return entry


def load(directory, kind):
    """The study's kind, its rows, and the names of its points without a usable report."""
    study_path = os.path.join(directory, "study.json")
    if not os.path.exists(study_path):
        if not kind:
            sys.exit("collect: %s holds no study.json (jobs/study.py writes one): give --kind weak or strong"
                     % directory)
        paths = sorted(glob.glob(os.path.join(directory, "*.json")))
        return kind, [r for r in (row(p, None) for p in paths) if r], []
    with open(study_path) as f:
        study = json.load(f)
    rows, missing = [], []
    for point in study["points"]:
        # The reports lie beside study.json, wherever the study's folder has moved.
        path = os.path.join(directory, os.path.basename(point["report"]))
        share = point["cpu_share"] if point["cpu_share"] == "auto" else "%g" % point["cpu_share"]
        entry = row(path, share) if os.path.exists(path) else None
        if entry:
            rows.append(entry)
        else:
            missing.append(point["name"])
    return study["kind"], rows, missing


def add_efficiency(kind, rows):
    by_share = {}
    for r in rows:
        by_share.setdefault(r["cpu_share"], []).append(r)
    fewest = min(r["ranks"] for r in rows)
    for share, group in by_share.items():
        base = min(group, key=lambda r: r["ranks"])
        if base["ranks"] != fewest:
            warn("cpu_share %s: no run on %d rank(s); its efficiencies are against %d" % (share, fewest, base["ranks"]))
        for r in group:
            if kind == "weak":
                r["efficiency"] = base["s_per_step"] / r["s_per_step"]
            else:
                r["efficiency"] = base["s_per_step"] * base["ranks"] / (r["s_per_step"] * r["ranks"])
    rows.sort(key=lambda r: (share_key(r["cpu_share"]), r["ranks"]))
    return by_share


def plot(kind, by_share, directory):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        sys.exit("collect: matplotlib is missing (Debian: apt-get install python3-matplotlib)")
    paths = []
    for key, label in (("efficiency", "parallel efficiency"), ("s_per_step", "time per step [s]")):
        fig, ax = plt.subplots(figsize=(6, 4))
        for share, group in sorted(by_share.items(), key=lambda item: share_key(item[0])):
            group = sorted(group, key=lambda r: r["ranks"])
            ax.plot([r["ranks"] for r in group], [r[key] for r in group], marker="o",
                    label="CPU share %s" % share)
        ax.set_xscale("log", base=2)
        ax.set_xlabel("MPI ranks")
        ax.set_ylabel(label)
        ax.set_title("Strata %s scaling: %s" % (kind, label))
        ax.grid(True, alpha=0.3)
        ax.legend()
        path = os.path.join(directory, "%s_%s.png" % (kind, key))
        fig.tight_layout()
        fig.savefig(path, dpi=100)
        plt.close(fig)
        paths.append(path)
    return paths


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("directory")
    parser.add_argument("--kind", choices=["weak", "strong"], help="the study's kind where DIR has no study.json")
    parser.add_argument("--csv", help="table output (default DIR/scaling.csv)")
    parser.add_argument("--plots", help="plot directory (default DIR)")
    args = parser.parse_args()
    kind, rows, missing = load(args.directory, args.kind)
    for name in missing:
        warn("no usable report for point %s (its job failed or has not run; see %s.out)" % (name, name))
    if not rows:
        sys.exit("collect: no run reports in %s" % args.directory)
    builds = sorted({r["build"] for r in rows})
    if len(builds) > 1:
        warn("the reports come from %d builds (%s): their times may not compare" % (len(builds), "; ".join(builds)))
    by_share = add_efficiency(kind, rows)
    columns = ["ranks", "grid", "s_per_step", "cells_per_s", "efficiency", "hidden_pct", "cpu_share", "host_share"]
    print("%s scaling, %d runs" % (kind, len(rows)))
    print("%6s %14s %12s %12s %10s %9s %9s %10s" % ("ranks", "grid", "s/step", "cells/s", "efficiency",
                                                    "hidden%", "cpu_share", "host_share"))
    for r in rows:
        print("%6d %14s %12.4g %12.4g %10.3f %9.1f %9s %10.3f" % (r["ranks"], r["grid"], r["s_per_step"],
                                                                  r["cells_per_s"], r["efficiency"],
                                                                  r["hidden_pct"], r["cpu_share"], r["host_share"]))
    table = args.csv or os.path.join(args.directory, "scaling.csv")
    with open(table, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=columns, extrasaction="ignore")
        writer.writeheader()
        writer.writerows(rows)
    plots = args.plots or args.directory
    os.makedirs(plots, exist_ok=True)
    for path in [table] + plot(kind, by_share, plots):
        print("wrote", path)
    if missing:
        warn("%d of %d points have no report" % (len(missing), len(missing) + len(rows)))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
