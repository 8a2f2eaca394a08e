#!/usr/bin/env python3
"""Independent check of fairtable receipts (docs/spec/relay.md section 2).

Reads the vectors file given as its argument and, for every receipt, recomputes
from the spec alone: the running log hash L_n, the JCS text of the receipt without
its signature, and the Ed25519 verification of `sig` under the orderer's key
(RFC 8032 section 5.1.7, with the curve arithmetic of ecvrf_check.py beside this
file). Prints {"ok": true} or the first disagreement, and exits 0 or 1. Uses only
the standard library.
"""
import hashlib
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ecvrf_check as ed  # noqa: E402  (curve arithmetic only: add, mul, decode, encode)


def tagged(tag, data):
    return hashlib.sha256(b"fairtable/" + tag.encode() + b"/v1\x00" + data).digest()


def jcs(value):
    # The receipt holds only ASCII strings and safe integers: sorted keys, no white space.
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


BASE = ed.from_affine(
    15112221349535400772501151409588531511454012693041857206046113283949847762202,
    46316835694926478169428394003475163141307993866256225615783033603165251855960,
)


def verify(pk, msg, sig):
    a = ed.decode(pk)
    r = ed.decode(sig[:32])
    if a is None or r is None:
        return False
    s = int.from_bytes(sig[32:], "little")
    if s >= ed.Q:
        return False
    k = int.from_bytes(hashlib.sha512(sig[:32] + pk + msg).digest(), "little") % ed.Q
    left = ed.mul(s, BASE)
    right = ed.add(r, ed.mul(k, a))
    return ed.encode(ed.mul(8, left)) == ed.encode(ed.mul(8, right))


def main():
    vectors = json.load(open(sys.argv[1]))
    pk = bytes.fromhex(vectors["ordererPublicKey"])
    game = bytes.fromhex(vectors["game"])
    log = None
    for case in vectors["receipts"]:
        r = case["receipt"]
        line_hash = bytes.fromhex(r["hash"])
        log = tagged("log", game + line_hash) if r["line"] == 0 else tagged("log", log + line_hash)
        if log.hex() != r["log"]:
            print(json.dumps({"ok": False, "line": r["line"], "why": "log hash"}))
            return 1
        unsigned = {k: v for k, v in r.items() if k != "sig"}
        text = jcs(unsigned)
        if text != case["signedText"]:
            print(json.dumps({"ok": False, "line": r["line"], "why": "canonical text"}))
            return 1
        msg = b"fairtable/receipt/v1\x00" + text.encode()
        if not verify(pk, msg, bytes.fromhex(r["sig"])):
            print(json.dumps({"ok": False, "line": r["line"], "why": "signature"}))
            return 1
    print(json.dumps({"ok": True, "receipts": len(vectors["receipts"])}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
