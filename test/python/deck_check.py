#!/usr/bin/env python3
"""Independent check of the deck vectors (docs/spec/deck.md section 9).

A second implementation written from the spec and the RFCs alone: ristretto255
(RFC 9496: decode, encode, element derivation), hash_to_ristretto255 with
expand_message_xmd over SHA-512 (RFC 9380), the Fiat-Shamir transcripts of
spec/deck.md section 2.3, the Schnorr and Chaum-Pedersen checks (2.4), and the
shuffle argument's equations checked one by one (5.2), not folded. Standard
library only; slow on purpose (plain double-and-add).

Usage: deck_check.py VECTORS_DIR  -> prints {"ok": true} or {"ok": false, "failures": [...]}
"""
import hashlib
import json
import os
import sys

P = 2**255 - 19
L = 2**252 + 27742317777372353535851937790883648493
D = (-121665 * pow(121666, P - 2, P)) % P
SQRT_M1 = pow(2, (P - 1) // 4, P)
IDENTITY = (0, 1, 1, 0)
DST = b"fairtable/deck/v1"


def inv(x):
    return pow(x, P - 2, P)


def is_negative(x):
    return (x % P) & 1 == 1


def ct_abs(x):
    x %= P
    return (P - x) % P if is_negative(x) else x


def sqrt_ratio_m1(u, v):
    # RFC 9496 section 4.2.
    u %= P
    v %= P
    v3 = v * v % P * v % P
    v7 = v3 * v3 % P * v % P
    r = (u * v3) % P * pow(u * v7 % P, (P - 5) // 8, P) % P
    check = v * r % P * r % P
    correct = check == u
    flipped = check == (-u) % P
    flipped_i = check == (-u * SQRT_M1) % P
    if flipped or flipped_i:
        r = r * SQRT_M1 % P
    return correct or flipped, ct_abs(r)


# The constants of RFC 9496 section 4.1, computed: INVSQRT_A_MINUS_D is the non-negative root,
# SQRT_AD_MINUS_ONE the negative one (the RFC's values; checked against them below).
SQRT_AD_MINUS_ONE = (P - sqrt_ratio_m1((-D - 1) % P, 1)[1]) % P
INVSQRT_A_MINUS_D = sqrt_ratio_m1(1, (-1 - D) % P)[1]
assert SQRT_AD_MINUS_ONE == 25063068953384623474111414158702152701244531502492656460079210482610430750235
assert INVSQRT_A_MINUS_D == 54469307008909316920995813868745141605393597292927456921205312896311721017578
ONE_MINUS_D_SQ = (1 - D * D) % P
D_MINUS_ONE_SQ = (D - 1) * (D - 1) % P


def add(p1, p2):
    # RFC 8032 section 5.1.4, a = -1, extended coordinates.
    x1, y1, z1, t1 = p1
    x2, y2, z2, t2 = p2
    a = (y1 - x1) * (y2 - x2) % P
    b = (y1 + x1) * (y2 + x2) % P
    c = 2 * t1 * t2 * D % P
    d = 2 * z1 * z2 % P
    e, f, g, h = b - a, d - c, d + c, b + a
    return (e * f % P, g * h % P, f * g % P, e * h % P)


def neg(p):
    x, y, z, t = p
    return ((-x) % P, y, z, (-t) % P)


def mul(s, pt):
    s %= L
    result = IDENTITY
    while s > 0:
        if s & 1:
            result = add(result, pt)
        pt = add(pt, pt)
        s >>= 1
    return result


def equal(p1, p2):
    # RFC 9496 section 4.3.3.
    x1, y1, _, _ = p1
    x2, y2, _, _ = p2
    return (x1 * y2 - y1 * x2) % P == 0 or (y1 * y2 - x1 * x2) % P == 0


def decode(hexstr):
    b = bytes.fromhex(hexstr)
    if len(b) != 32:
        raise ValueError("length")
    s = int.from_bytes(b, "little")
    if s >= P or is_negative(s):
        raise ValueError("non-canonical")
    ss = s * s % P
    u1 = (1 - ss) % P
    u2 = (1 + ss) % P
    u2_sqr = u2 * u2 % P
    v = (-(D * u1 * u1) - u2_sqr) % P
    was_square, invsqrt = sqrt_ratio_m1(1, v * u2_sqr)
    den_x = invsqrt * u2 % P
    den_y = invsqrt * den_x % P * v % P
    x = ct_abs(2 * s * den_x)
    y = u1 * den_y % P
    t = x * y % P
    if not was_square or is_negative(t) or y == 0:
        raise ValueError("not a ristretto255 encoding")
    return (x, y, 1, t)


def encode(pt):
    x0, y0, z0, t0 = pt
    u1 = (z0 + y0) * (z0 - y0) % P
    u2 = x0 * y0 % P
    _, invsqrt = sqrt_ratio_m1(1, u1 * u2 % P * u2 % P)
    den1 = invsqrt * u1 % P
    den2 = invsqrt * u2 % P
    z_inv = den1 * den2 % P * t0 % P
    rotate = is_negative(t0 * z_inv)
    if rotate:
        x, y, den_inv = y0 * SQRT_M1 % P, x0 * SQRT_M1 % P, den1 * INVSQRT_A_MINUS_D % P
    else:
        x, y, den_inv = x0, y0, den2
    if is_negative(x * z_inv):
        y = (-y) % P
    s = ct_abs(den_inv * (z0 - y))
    return s.to_bytes(32, "little")


def map_to_point(t):
    # RFC 9496 section 4.3.4, MAP.
    r = SQRT_M1 * t % P * t % P
    u = (r + 1) * ONE_MINUS_D_SQ % P
    v = (-1 - r * D) * (r + D) % P
    was_square, s = sqrt_ratio_m1(u, v)
    s_prime = (-ct_abs(s * t)) % P
    if not was_square:
        s = s_prime
    c = P - 1 if was_square else r
    n = (c * (r - 1) % P * D_MINUS_ONE_SQ - v) % P
    w0 = 2 * s * v % P
    w1 = n * SQRT_AD_MINUS_ONE % P
    w2 = (1 - s * s) % P
    w3 = (1 + s * s) % P
    return (w0 * w3 % P, w2 * w1 % P, w1 * w3 % P, w0 * w2 % P)


def expand_message_xmd(msg, dst, length):
    # RFC 9380 section 5.3.1 with SHA-512 (b = 64, s = 128); one block suffices for 64 bytes.
    assert length == 64
    dst_prime = dst + bytes([len(dst)])
    b0 = hashlib.sha512(bytes(128) + msg + length.to_bytes(2, "big") + b"\x00" + dst_prime).digest()
    return hashlib.sha512(b0 + b"\x01" + dst_prime).digest()


def hash_to_point(label):
    u = expand_message_xmd(label.encode(), DST, 64)
    mask = (1 << 255) - 1
    t0 = (int.from_bytes(u[:32], "little") & mask) % P
    t1 = (int.from_bytes(u[32:], "little") & mask) % P
    return add(map_to_point(t0), map_to_point(t1))


Y_BASE = 4 * inv(5) % P
X_BASE = 15112221349535400772501151409588531511454012693041857206046113283949847762202
G = (X_BASE, Y_BASE, 1, X_BASE * Y_BASE % P)


class Transcript:
    def __init__(self, tag):
        self.b = ("fairtable/deck/%s/v1" % tag).encode() + b"\x00"

    def text(self, s):
        e = s.encode()
        self.b += len(e).to_bytes(4, "big") + e
        return self

    def int(self, n):
        self.b += n.to_bytes(4, "big")
        return self

    def point(self, p):
        self.b += encode(p)
        return self

    def raw(self, r):
        self.b += r
        return self

    def scalar(self, x):
        self.b += (x % L).to_bytes(32, "little")
        return self

    def digest(self):
        return hashlib.sha512(self.b).digest()

    def challenge(self):
        return int.from_bytes(self.digest(), "little") % L


def indexed(seed, i):
    return int.from_bytes(hashlib.sha512(seed + i.to_bytes(4, "big")).digest(), "little") % L


def scalar(hexstr):
    x = int.from_bytes(bytes.fromhex(hexstr), "little")
    if len(hexstr) != 64 or x >= L:
        raise ValueError("scalar")
    return x


def proof_parts(hexstr):
    return scalar(hexstr[:64]), scalar(hexstr[64:])


def check_knowledge(t, y, proof):
    c, z = proof_parts(proof)
    r = add(mul(z, G), neg(mul(c, y)))
    return t.point(G).point(y).point(r).challenge() == c


def check_equal(t, g1, y1, g2, y2, proof):
    c, z = proof_parts(proof)
    r1 = add(mul(z, g1), neg(mul(c, y1)))
    r2 = add(mul(z, g2), neg(mul(c, y2)))
    return t.point(g1).point(y1).point(g2).point(y2).point(r1).point(r2).challenge() == c


def check_shuffle(game, players, sh):
    n = len(sh["input"])
    key = decode(sh["jointKey"])
    inp = [(decode(c["a"]), decode(c["b"])) for c in sh["input"]]
    out = [(decode(c["a"]), decode(c["b"])) for c in sh["output"]]
    pr = sh["proof"]
    com = [decode(x) for x in pr["commitments"]]
    chain = [decode(x) for x in pr["chain"]]
    t_hat = [decode(x) for x in pr["tHat"]]
    t1, t2, t3, t4a, t4b = (decode(pr[k]) for k in ("t1", "t2", "t3", "t4a", "t4b"))
    s1, s2, s3, s4 = (scalar(pr[k]) for k in ("s1", "s2", "s3", "s4"))
    s_hat = [scalar(x) for x in pr["sHat"]]
    s_prime = [scalar(x) for x in pr["sPrime"]]
    h = hash_to_point("fairtable/deck/pedersen/h")
    hs = [hash_to_point("fairtable/deck/pedersen/%d" % (i + 1)) for i in range(n)]
    t = Transcript("shuffle").text(game).int(players.index(sh["shuffler"])).text(sh["shuffler"]).int(sh["index"]).point(key).int(n)
    for a, b in inp:
        t.point(a).point(b)
    for a, b in out:
        t.point(a).point(b)
    for c in com:
        t.point(c)
    seed = t.digest()
    u = [indexed(seed, j) for j in range(n)]
    tc = Transcript("shuffle-challenge").raw(seed)
    for p in chain + [t1, t2, t3, t4a, t4b] + t_hat:
        tc.point(p)
    c = tc.challenge()
    u_prod = 1
    for x in u:
        u_prod = u_prod * x % L

    def total(pairs):
        acc = IDENTITY
        for k, p in pairs:
            acc = add(acc, mul(k, p))
        return acc

    sum_c = total([(1, x) for x in com] + [(L - 1, x) for x in hs])
    ok = [
        equal(t1, add(mul(s1, G), neg(mul(c, sum_c)))),
        equal(t2, add(mul(s2, G), neg(mul(c, add(chain[-1], neg(mul(u_prod, h))))))),
        equal(t3, add(add(mul(s3, G), total(zip(s_prime, hs))), neg(mul(c, total(zip(u, com)))))),
        equal(t4a, add(add(total(zip(s_prime, [a for a, _ in out])), neg(mul(s4, G))), neg(mul(c, total(zip(u, [a for a, _ in inp])))))),
        equal(t4b, add(add(total(zip(s_prime, [b for _, b in out])), neg(mul(s4, key))), neg(mul(c, total(zip(u, [b for _, b in inp])))))),
    ]
    for i in range(n):
        prev = h if i == 0 else chain[i - 1]
        ok.append(equal(t_hat[i], add(add(mul(s_hat[i], G), mul(s_prime[i], prev)), neg(mul(c, chain[i])))))
    return all(ok)


def main():
    folder = sys.argv[1]
    load = lambda name: json.load(open(os.path.join(folder, name)))
    jk, sh, dl = load("deck-joint-key.json"), load("deck-shuffle.json"), load("deck-deal.json")
    game, players = jk["game"], jk["players"]
    failures = []

    def expect(cond, what):
        if not cond:
            failures.append(what)

    expect(encode(G).hex() == "e2f2ae0a6abc4e71a884a961c500515f58e30b6aa582dd8db6a65945e08d2d76", "base point encoding")
    cards = [hash_to_point(c["label"]) for c in jk["cards"]]
    for c, pt in zip(jk["cards"], cards):
        expect(encode(pt).hex() == c["point"], "card point " + c["label"])
        expect(encode(decode(c["point"])).hex() == c["point"], "card point round trip " + c["label"])
    expect(encode(hash_to_point("fairtable/deck/pedersen/h")).hex() == jk["pedersen"]["h"], "pedersen h")
    for i, g in enumerate(jk["pedersen"]["generators"]):
        expect(encode(hash_to_point("fairtable/deck/pedersen/%d" % (i + 1))).hex() == g, "pedersen %d" % (i + 1))
    total = IDENTITY
    secrets = 0
    for seat, s in enumerate(jk["shares"]):
        y = decode(s["key"])
        x = scalar(s["secret"])
        secrets += x
        expect(encode(mul(x, G)).hex() == s["key"], "key of " + s["player"])
        t = Transcript("key-share").text(game).int(seat).text(s["player"])
        expect(check_knowledge(t, y, s["proof"]), "key proof of " + s["player"])
        other = Transcript("key-share").text(game).int((seat + 1) % len(players)).text(s["player"])
        expect(not check_knowledge(other, y, s["proof"]), "key proof bound to seat " + s["player"])
        total = add(total, y)
    expect(encode(total).hex() == jk["jointKey"], "joint key is the sum")
    expect(encode(mul(secrets, G)).hex() == jk["jointKey"], "joint key from the secrets")
    expect(sh["input"] == [{"a": encode(IDENTITY).hex(), "b": encode(p).hex()} for p in cards], "the deck as made")
    expect(check_shuffle(game, players, sh), "shuffle proof")
    expect(not check_shuffle(game, players, dict(sh, index=sh["index"] + 1)), "shuffle proof bound to its index")
    keys = [decode(k) for k in dl["keys"]]
    for part in ("private", "faceUp"):
        q = dl[part]["position"]
        a, b = decode(dl["deck"][q]["a"]), decode(dl["deck"][q]["b"])
        m = b
        for s in dl[part]["shares"]:
            seat = players.index(s["player"])
            d = decode(s["share"])
            t = Transcript("decryption-share").text(game).int(seat).text(s["player"]).int(q)
            expect(check_equal(t, G, keys[seat], a, d, s["proof"]), "decryption share of %s at %d" % (s["player"], q))
            m = add(m, neg(d))
        if part == "private":
            owner = players.index(dl[part]["owner"])
            m = add(m, neg(mul(scalar(jk["shares"][owner]["secret"]), a)))
        expect(equal(m, cards[dl[part]["card"]]), "card at %d" % q)
    print(json.dumps({"ok": not failures, "failures": failures}))


if __name__ == "__main__":
    main()
