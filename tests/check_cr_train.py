#!/usr/bin/env python3
"""Checks a `clparity train --json` run with cl:cr (issue 23, acceptance 4): every cl:cr result's
weights were host:cr's bits at every recorded step (first_divergent_step_cr 0), its final
forward was host:cr's (forward_equals_cr), and its final weights' hash is host:cr's.

Usage: check_cr_train.py TRAIN_JSON. Exit status 0 when all hold, 1 otherwise."""
import json
import sys


def main():
    with open(sys.argv[1]) as f:
        doc = json.load(f)
    host = [r for r in doc["results"] if r["engine"] == "host:cr"]
    cls = [r for r in doc["results"] if r["engine"] == "cl:cr"]
    if len(host) != 1 or not cls:
        print(f"FAIL: {len(host)} host:cr and {len(cls)} cl:cr results in {sys.argv[1]}")
        return 1
    bad = 0
    for r in cls:
        ok = (r.get("first_divergent_step_cr") == 0 and r.get("forward_equals_cr") is True
              and r["hash"] == host[0]["hash"])
        print(f"{'ok' if ok else 'FAIL'}: cl:cr on {r['device']}: weights {r['hash']} (host:cr "
              f"{host[0]['hash']}), first step not host:cr's: {r.get('first_divergent_step_cr')}, "
              f"forward equal: {r.get('forward_equals_cr')}")
        bad += not ok
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
