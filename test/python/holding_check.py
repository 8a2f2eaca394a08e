#!/usr/bin/env python3
"""Independent check of fairtable holding receipts (docs/spec/sealed.md section 3).

Reads the vectors file given as its argument and recomputes from the spec alone:
the JCS text of each holding receipt without its signature, the Ed25519
verification of `sig` over "fairtable/holding-receipt/v1" 0x00 text under the
orderer's key, and, for each loss case, the line receipt's signature, its running
log hash over the given line hashes, and the loss rule: lost exactly when the line
receipt is of the same game, its time is after the holding receipt's `until`, and
no line hash up to it is the held envelope's hash. Prints {"ok": true} or the first
disagreement, and exits 0 or 1. Uses only the standard library (and the Ed25519
check of receipt_check.py beside this file).
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from receipt_check import jcs, tagged, verify  # noqa: E402


def fail(why, **where):
    print(json.dumps({"ok": False, "why": why, **where}))
    return 1


def main():
    vectors = json.load(open(sys.argv[1]))
    pk = bytes.fromhex(vectors["ordererPublicKey"])
    game = vectors["game"]
    for i, case in enumerate(vectors["holdings"]):
        h = case["holding"]
        if set(h) != {"v", "game", "hash", "time", "until", "sig"} or h["until"] < h["time"]:
            return fail("shape", holding=i)
        text = jcs({k: v for k, v in h.items() if k != "sig"})
        if text != case["signedText"]:
            return fail("canonical text", holding=i)
        if not verify(pk, b"fairtable/holding-receipt/v1\x00" + text.encode(), bytes.fromhex(h["sig"])):
            return fail("signature", holding=i)
    for i, case in enumerate(vectors["loss"]):
        h, r, hashes = case["holding"], case["receipt"], case["lineHashes"]
        if not verify(pk, b"fairtable/holding-receipt/v1\x00" + jcs({k: v for k, v in h.items() if k != "sig"}).encode(), bytes.fromhex(h["sig"])):
            return fail("holding signature", loss=i)
        if not verify(pk, b"fairtable/receipt/v1\x00" + jcs({k: v for k, v in r.items() if k != "sig"}).encode(), bytes.fromhex(r["sig"])):
            return fail("receipt signature", loss=i)
        log = None
        for n, x in enumerate(hashes):
            log = tagged("log", bytes.fromhex(game) + bytes.fromhex(x)) if n == 0 else tagged("log", log + bytes.fromhex(x))
        if r["line"] != len(hashes) - 1 or log.hex() != r["log"]:
            return fail("log hash", loss=i)
        lost = h["game"] == r["game"] and r["time"] > h["until"] and h["hash"] not in hashes
        if lost != case["lost"]:
            return fail("loss rule", loss=i)
    print(json.dumps({"ok": True, "holdings": len(vectors["holdings"]), "loss": len(vectors["loss"])}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
