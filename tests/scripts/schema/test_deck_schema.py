#!/usr/bin/env python3
"""The deck JSON Schema (docs/strata-deck.schema.json) against real decks.

  tests/scripts/schema/test_deck_schema.py STRATA

Accepted: every YAML deck in inputs/ and tests/decks/good, and what
`strata DECK --print-deck` prints for each (which must also pass
`strata --check`, and print itself again unchanged). Rejected: the bad decks
below, whose fault a schema can express (types, ranges, unknown and missing
keys); the others need the run's cross-key checks (`strata --check`).
Exit 77 (skipped) without Python's jsonschema module.
"""
import glob
import json
import os
import subprocess
import sys
import tempfile

try:
    import jsonschema
    import yaml
except ImportError as missing:
    print("test_deck_schema: skipped, no %s (Debian: python3-jsonschema python3-yaml)" % missing.name)
    sys.exit(77)

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))

REJECTED = [
    "alpha_misspelled", "alpha_negative", "cells_fraction", "cells_missing", "cells_two_values", "cells_zero",
    "cfl_too_large", "checkpoint_negative", "cpu_share_range", "cpu_share_word", "dims_negative", "dt_not_number",
    "gpu_aware_word", "grid_not_mapping", "halo_width_negative", "missing_app", "periodic_word", "rebalance_zero",
    "report_negative", "report_typo", "steps_negative", "time_tiling_steps_fraction", "time_tiling_steps_too_many",
    "time_tiling_steps_word", "time_tiling_steps_zero", "time_tiling_tile_one_value", "time_tiling_tile_zero",
    "other_app_section", "unknown_app", "unknown_top_key", "write_every_negative",
]


def load(path):
    with open(path) as f:
        # Editors see mapping keys as strings (clover states are numbered).
        return json.loads(json.dumps(yaml.safe_load(f)))


def main():
    strata = sys.argv[1]
    with open(os.path.join(ROOT, "docs", "strata-deck.schema.json")) as f:
        schema = json.load(f)
    jsonschema.Draft7Validator.check_schema(schema)
    validator = jsonschema.Draft7Validator(schema)
    failures = []

    good = sorted(glob.glob(os.path.join(ROOT, "inputs", "*.yaml")) +
                  glob.glob(os.path.join(ROOT, "tests", "decks", "good", "*.yaml")))
    assert len(good) >= 4, good
    for deck in good:
        errors = [e.message for e in validator.iter_errors(load(deck))]
        if errors:
            failures.append("%s: rejected: %s" % (deck, "; ".join(errors)))
        printed = subprocess.run([strata, deck, "--print-deck"], capture_output=True, text=True,
                                 env=dict(os.environ, OMP_NUM_THREADS="1"))
        if printed.returncode != 0:
            failures.append("%s: --print-deck failed: %s" % (deck, printed.stderr))
            continue
        with tempfile.NamedTemporaryFile("w", suffix=".yaml", delete=False) as f:
            f.write(printed.stdout)
        try:
            errors = [e.message for e in validator.iter_errors(load(f.name))]
            if errors:
                failures.append("%s: its --print-deck output is rejected: %s" % (deck, "; ".join(errors)))
            check = subprocess.run([strata, "--check", f.name], capture_output=True, text=True)
            if check.returncode != 0:
                failures.append("%s: its --print-deck output fails --check: %s" % (deck, check.stderr))
            again = subprocess.run([strata, f.name, "--print-deck"], capture_output=True, text=True,
                                   env=dict(os.environ, OMP_NUM_THREADS="1"))
            if again.stdout != printed.stdout:
                failures.append("%s: --print-deck of its --print-deck output differs" % deck)
        finally:
            os.unlink(f.name)

    for name in REJECTED:
        deck = os.path.join(ROOT, "tests", "decks", "bad", name + ".yaml")
        if not list(validator.iter_errors(load(deck))):
            failures.append("%s: accepted by the schema" % deck)

    for failure in failures:
        print(failure)
    print("test_deck_schema: %d good decks (and their --print-deck) accepted, %d bad decks rejected, %d failures"
          % (len(good), len(REJECTED), len(failures)))
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
