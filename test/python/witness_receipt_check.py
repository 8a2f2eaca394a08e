#!/usr/bin/env python3
"""Independent check of fairtable witness receipts (docs/spec/relay.md section 8).

Reads the vectors file given as its argument and, for every witness receipt,
recomputes from the spec alone the JCS text of the receipt without its signature
and the Ed25519 verification of `sig` under the witness's key, with the domain
prefix "fairtable/witness-receipt/v1" and a zero byte. Prints {"ok": true} or the
first disagreement, and exits 0 or 1. Uses only the standard library (Ed25519
verification from receipt_check.py beside this file).
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import receipt_check as rc  # noqa: E402  (jcs and Ed25519 verification)

MEMBERS = {"v", "game", "from", "seq", "hash", "time", "sig"}


def main():
    vectors = json.load(open(sys.argv[1]))
    pk = bytes.fromhex(vectors["witnessPublicKey"])
    for i, case in enumerate(vectors["receipts"]):
        r = case["receipt"]
        if set(r) != MEMBERS or r["v"] != 1 or r["game"] != vectors["game"]:
            print(json.dumps({"ok": False, "case": i, "why": "members"}))
            return 1
        text = rc.jcs({k: v for k, v in r.items() if k != "sig"})
        if text != case["signedText"]:
            print(json.dumps({"ok": False, "case": i, "why": "canonical text"}))
            return 1
        if not rc.verify(pk, b"fairtable/witness-receipt/v1\x00" + text.encode(), bytes.fromhex(r["sig"])):
            print(json.dumps({"ok": False, "case": i, "why": "signature"}))
            return 1
    print(json.dumps({"ok": True, "receipts": len(vectors["receipts"])}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
