#!/usr/bin/env python3
"""Diplomacy position hash, written from docs/spec/diplomacy.md section 4 alone.

Reads one JSON position per line on stdin (the JSON layout: phase, units,
dislodged, contested, supplyCenterOwners, winner; lists in any order) and
prints its position hash in hex, one per line. Standard library only.

JCS (RFC 8785) for these values (objects, lists, ASCII strings, small
integers, booleans, null) is json.dumps with sorted keys and no spaces.
"""
import hashlib
import json
import sys

TAG = b"fairtable/diplomacy-position/v1\x00"


def encode(p, map_name="standard"):
    by_at = lambda x: x["at"]
    return {
        "map": map_name,
        "phase": {"season": p["phase"]["season"], "year": p["phase"]["year"], "type": p["phase"]["type"]},
        "units": [{"power": u["power"], "type": u["type"], "at": u["at"]} for u in sorted(p["units"], key=by_at)],
        "dislodged": [
            {
                "power": d["power"],
                "type": d["type"],
                "at": d["at"],
                "attackerFrom": d.get("attackerFrom"),
                "attackerViaConvoy": bool(d.get("attackerViaConvoy", False)),
            }
            for d in sorted(p.get("dislodged", []), key=by_at)
        ],
        "contested": sorted(set(p.get("contested", []))),
        "supplyCenterOwners": [{"power": o["power"], "at": o["at"]} for o in sorted(p["supplyCenterOwners"], key=by_at)],
        "winner": p.get("winner"),
    }


def position_hash(p):
    jcs = json.dumps(encode(p), sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(TAG + jcs.encode("utf-8")).hexdigest()


def main():
    for line in sys.stdin:
        line = line.strip()
        if line:
            print(position_hash(json.loads(line)))


if __name__ == "__main__":
    main()
