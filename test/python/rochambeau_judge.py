#!/usr/bin/env python3
"""An independent judge for M-party, N-state Rochambeau (draft-harkins-rochambeau-02).

Written from docs/spec/rochambeau.md alone, Python 3 standard library only, and
literal on purpose: every tweak XORs the other players' C-values one by one and
every round plays all pairs through the draft's Figure 1 (section 4.1). The
TypeScript judge takes shortcuts; test/rochambeau-python.test.ts checks that
both print the same verdict for the same game.

    python3 rochambeau_judge.py < game.json > verdict.json
    python3 rochambeau_judge.py --lines < games.jsonl > verdicts.jsonl

Input:  {"N": 101 | "101", "hash": "sha-256", "game": "<id>" (optional),
         "players": [{"id": ..., "commit": hex | null, "reveal": hex | null}, ...]}
Output: {"winner": id | null, "disqualified": [{"id", "code", "detail"}],
         "rounds": [{"round": r, "players": [{"id", "tweak", "state", "score"}]}]}
Exit 2 with a message on stderr when the input cannot be read.
"""
import hashlib
import json
import re
import struct
import sys

HASHES = {"sha-256": "sha256", "sha-384": "sha384", "sha-512": "sha512", "sha3-256": "sha3_256"}
COMMIT_TYPE = 1
REVEAL_TYPE = 2
MIN_NONCE = 16
MAX_ROUNDS = 255
BINDING_TAG = b"fairtable/rochambeau-nonce/v1\x00"


class Unreadable(Exception):
    pass


def H(name, data):
    return hashlib.new(HASHES[name], data).digest()


def os2ip(octets):
    return int.from_bytes(octets, "big")


def binding(game_id, player_id):
    g = game_id.encode("utf-8")
    p = player_id.encode("utf-8")
    data = BINDING_TAG + struct.pack(">I", len(g)) + g + struct.pack(">I", len(p)) + p
    return hashlib.sha256(data).digest()[:16]


def figure1(i, j, n):
    """Rochambeau(I, J, N) of section 4.1, from I's side: +1 WINNER, -1 LOSER, 0 TIE."""
    if i == j:
        return 0
    return 1 if ((j - i) % n) % 2 == 1 else -1


def read_input(text):
    def pairs(items):
        keys = [k for k, _ in items]
        if len(keys) != len(set(keys)):
            raise Unreadable("a member appears twice")
        return dict(items)

    try:
        game = json.loads(text, object_pairs_hook=pairs)
    except ValueError as e:
        raise Unreadable(f"not JSON: {e}")
    if not isinstance(game, dict):
        raise Unreadable("expected an object")
    unknown = set(game) - {"N", "hash", "game", "players"}
    if unknown:
        raise Unreadable(f"unknown members {sorted(unknown)}")
    n = game.get("N")
    if isinstance(n, bool) or not (isinstance(n, int) or (isinstance(n, str) and re.fullmatch(r"[1-9][0-9]*", n))):
        raise Unreadable("N: expected a positive integer")
    n = int(n)
    if n < 3 or n % 2 == 0:
        raise Unreadable(f"N: must be odd and at least 3, got {n}")
    hash_name = game.get("hash", "sha-256")
    if hash_name not in HASHES:
        raise Unreadable(f"hash: unknown {hash_name!r}")
    game_id = game.get("game")
    if game_id is not None and not isinstance(game_id, str):
        raise Unreadable("game: expected a string")
    players = game.get("players")
    if not isinstance(players, list):
        raise Unreadable("players: expected an array")
    parsed = []
    for k, p in enumerate(players):
        if not isinstance(p, dict) or set(p) - {"id", "commit", "reveal"} or not isinstance(p.get("id"), str):
            raise Unreadable(f"players[{k}]: expected {{id, commit, reveal}}")
        entry = {"id": p["id"]}
        for field in ("commit", "reveal"):
            value = p.get(field)
            if value is None:
                entry[field] = None
            elif isinstance(value, str) and re.fullmatch(r"(?:[0-9a-fA-F]{2})*", value):
                entry[field] = bytes.fromhex(value)
            else:
                raise Unreadable(f"players[{k}].{field}: expected hex or null")
        parsed.append(entry)
    if len({p["id"] for p in parsed}) != len(parsed):
        raise Unreadable("players: ids must be unique")
    return n, hash_name, game_id, parsed


def state_octets(n):
    m = 1
    while 256 ** m <= n:
        m += 1
    return m


def commit_fault(commit, h):
    expected = 2 + h
    if len(commit) < 2:
        return "bad_length", f"Commit is {len(commit)} octets; expected {expected}"
    t = int.from_bytes(commit[:2], "big")
    if t != COMMIT_TYPE:
        return "bad_payload_type", f"Commit has payload type {t}; expected {COMMIT_TYPE}"
    if len(commit) < expected:
        return "bad_length", f"Commit is {len(commit)} octets; expected {expected}"
    if len(commit) > expected:
        return "trailing_bytes", f"Commit is {len(commit)} octets; expected {expected}"
    return None


def reveal_fault(reveal, m):
    if len(reveal) < 2:
        return "bad_length", f"Reveal is {len(reveal)} octets; expected at least 4"
    t = int.from_bytes(reveal[:2], "big")
    if t != REVEAL_TYPE:
        return "bad_payload_type", f"Reveal has payload type {t}; expected {REVEAL_TYPE}"
    if len(reveal) < 4:
        return "bad_length", f"Reveal is {len(reveal)} octets; expected at least 4"
    nonce_len = int.from_bytes(reveal[2:4], "big")
    expected = 4 + nonce_len + m
    if len(reveal) != expected:
        code = "bad_length" if len(reveal) < expected else "trailing_bytes"
        return code, f"Reveal is {len(reveal)} octets; nonce length {nonce_len} and m = {m} need {expected}"
    if nonce_len < MIN_NONCE:
        return "short_nonce", f"nonce is {nonce_len} octets; at least {MIN_NONCE} required"
    return None


def judge(n, hash_name, game_id, players):
    h = len(H(hash_name, b""))
    m = state_octets(n)
    disqualified = []
    first_commit_of = {}
    qualified = []  # (id, C, q)
    for p in players:
        pid = p["id"]

        def out(code, detail):
            disqualified.append({"id": pid, "code": code, "detail": detail})

        commit, reveal = p["commit"], p["reveal"]
        if commit is None:
            out("no_commit", "no Commit arrived")
            continue
        fault = commit_fault(commit, h)
        if fault:
            out(*fault)
            continue
        c = commit[2:]
        if c in first_commit_of:
            out("copied_commit", f"C-value copies the Commit of player {first_commit_of[c]}")
            continue
        first_commit_of[c] = pid
        if reveal is None:
            out("no_reveal", "no Reveal arrived")
            continue
        fault = reveal_fault(reveal, m)
        if fault:
            out(*fault)
            continue
        nonce_len = int.from_bytes(reveal[2:4], "big")
        nonce, M = reveal[4 : 4 + nonce_len], reveal[4 + nonce_len :]
        if H(hash_name, nonce + M) != c:
            out("commit_mismatch", "Reveal does not open the Commit: H(nonce || M) differs from C")
            continue
        if game_id is not None and nonce[:16] != binding(game_id, pid):
            out("foreign_nonce", "nonce does not begin with the 16-octet binding of this player in this game")
            continue
        q = os2ip(M)
        if q < 1 or q >= n:
            out("state_out_of_range", f"revealed state {q} is outside 1..{n - 1}")
            continue
        qualified.append((pid, c, q))

    rounds = []
    winner = None
    playing = qualified
    for r in range(1, MAX_ROUNDS + 1):
        if not playing:
            break
        entries = []
        for k, (pid, c, q) in enumerate(playing):
            x = bytes(h)
            for j, (_, other, _) in enumerate(playing):
                if j != k:
                    x = bytes(a ^ b for a, b in zip(x, other))
            tweak = os2ip(H(hash_name, x + bytes([r]))) % n
            entries.append({"id": pid, "tweak": tweak, "state": (q + tweak) % n})
        for k, e in enumerate(entries):
            e["score"] = sum(figure1(e["state"], o["state"], n) for j, o in enumerate(entries) if j != k)
        rounds.append(
            {
                "round": r,
                "players": [
                    {"id": e["id"], "tweak": str(e["tweak"]), "state": str(e["state"]), "score": e["score"]} for e in entries
                ],
            }
        )
        best = max(e["score"] for e in entries)
        leaders = [k for k, e in enumerate(entries) if e["score"] == best]
        if len(leaders) == 1:
            winner = entries[leaders[0]]["id"]
            break
        playing = [playing[k] for k in leaders]
    return {"winner": winner, "disqualified": disqualified, "rounds": rounds}


def dumps(value):
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def main():
    if sys.argv[1:] == ["--lines"]:
        # One game per input line, one verdict per output line: many games per process.
        for line in sys.stdin.buffer:
            try:
                print(dumps(judge(*read_input(line))))
            except Unreadable as e:
                print(dumps({"unreadable": str(e)}))
        return
    try:
        n, hash_name, game_id, players = read_input(sys.stdin.buffer.read())
    except Unreadable as e:
        sys.stderr.write(f"rochambeau_judge.py: {e}\n")
        sys.exit(2)
    sys.stdout.write(dumps(judge(n, hash_name, game_id, players)) + "\n")


if __name__ == "__main__":
    main()
