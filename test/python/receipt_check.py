#!/usr/bin/env python3
"""Independent check of fairtable receipts (docs/spec/relay.md section 2).

Reads the vectors file given as its argument and, for every receipt, recomputes
from the spec alone: the running log hash L_n, the JCS text of the receipt without
its signature, and the Ed25519 verification of `sig` under the orderer's key
(RFC 8032 section 5.1.7, with the curve arithmetic of ecvrf_check.py beside this
file). A version-2 receipt (signed with its batch) is checked by folding its leaf
with its inclusion proof (RFC 9162 section 2.1.3.2) and verifying the batch's
signature over the root. For a file of batches (receipt-batches.json): each batch's
leaves, its RFC 9162 root, the text its signature covers, and every receipt's proof
and signature. Prints {"ok": true} or the first disagreement, and exits 0 or 1.
Uses only the standard library.
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


def node(left, right):
    return tagged("receipt-node", left + right)


def mth(leaves):
    # RFC 9162 section 2.1.1: split at the largest power of two below n.
    if len(leaves) == 1:
        return leaves[0]
    k = 1
    while k * 2 < len(leaves):
        k *= 2
    return node(mth(leaves[:k]), mth(leaves[k:]))


def root_from_path(leaf, index, size, path):
    # RFC 9162 section 2.1.3.2.
    if index >= size:
        return None
    fn, sn, r = index, size - 1, leaf
    for p in path:
        if sn == 0:
            return None
        if fn % 2 == 1 or fn == sn:
            r = node(p, r)
            while fn % 2 == 0 and fn != 0:
                fn >>= 1
                sn >>= 1
        else:
            r = node(r, p)
        fn >>= 1
        sn >>= 1
    return r if sn == 0 else None


def check_batches(vectors):
    """Version 2 (receipt-batches.json): each batch's leaves, root and signed text, and every receipt's proof."""
    pk = bytes.fromhex(vectors["ordererPublicKey"])
    count = 0
    for b in vectors["batches"]:
        fail = lambda why: print(json.dumps({"ok": False, "batch": b["size"], "why": why})) or 1  # noqa: E731
        texts = [jcs({k: r[k] for k in ("v", "game", "line", "hash", "log", "time")}) for r in b["receipts"]]
        if texts != b["leafTexts"]:
            return fail("leaf texts")
        leaves = [tagged("receipt-leaf", t.encode()) for t in texts]
        if [x.hex() for x in leaves] != b["leaves"]:
            return fail("leaf hashes")
        root = mth(leaves)
        if root.hex() != b["root"]:
            return fail("root")
        text = jcs({"v": 2, "size": len(leaves), "root": root.hex()})
        if text != b["signedText"]:
            return fail("signed text")
        for i, r in enumerate(b["receipts"]):
            batch = r["batch"]
            if batch["index"] != i or batch["size"] != len(leaves) or r["v"] != 2:
                return fail("place in the batch")
            if root_from_path(leaves[i], i, len(leaves), [bytes.fromhex(p) for p in batch["path"]]) != root:
                return fail("inclusion proof of receipt %d" % i)
            if not verify(pk, b"fairtable/receipt-batch/v1\x00" + text.encode(), bytes.fromhex(r["sig"])):
                return fail("signature")
            count += 1
    print(json.dumps({"ok": True, "receipts": count}))
    return 0


def main():
    vectors = json.load(open(sys.argv[1]))
    if "batches" in vectors:
        return check_batches(vectors)
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
        unsigned = {k: v for k, v in r.items() if k not in ("sig", "batch")}
        text = jcs(unsigned)
        if text != case["signedText"]:
            print(json.dumps({"ok": False, "line": r["line"], "why": "canonical text"}))
            return 1
        if r["v"] == 2:
            # Signed with its batch: the leaf, folded with its inclusion proof, gives the root the signature covers.
            batch = r["batch"]
            leaf = tagged("receipt-leaf", text.encode())
            root = root_from_path(leaf, batch["index"], batch["size"], [bytes.fromhex(p) for p in batch["path"]])
            if root is None:
                print(json.dumps({"ok": False, "line": r["line"], "why": "inclusion proof"}))
                return 1
            msg = b"fairtable/receipt-batch/v1\x00" + jcs({"v": 2, "size": batch["size"], "root": root.hex()}).encode()
        else:
            msg = b"fairtable/receipt/v1\x00" + text.encode()
        if not verify(pk, msg, bytes.fromhex(r["sig"])):
            print(json.dumps({"ok": False, "line": r["line"], "why": "signature"}))
            return 1
    print(json.dumps({"ok": True, "receipts": len(vectors["receipts"])}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
