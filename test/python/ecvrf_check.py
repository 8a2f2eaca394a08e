#!/usr/bin/env python3
"""Independent test oracle for ECVRF-EDWARDS25519-SHA512-{TAI,ELL2}.

A deliberately plain second implementation of RFC 9381 section 5 (prove,
verify, proof_to_hash, validate_key) on edwards25519, written from the
formulas of RFC 8032 (curve, encoding), RFC 9380 (expand_message_xmd,
hash_to_field, Elligator 2 and the map to edwards25519) and RFC 9381. It
shares no code with the TypeScript implementation and uses only the
standard library. It is slow on purpose: no windows, no tricks, affine
results through one inversion.

Usage:
  ecvrf_check.py --vectors FILE   check prove/verify/H against RFC vectors
  ecvrf_check.py < cases.json     verify cases, print verdicts as JSON
  ecvrf_check.py --prove < keys.json   prove, print proofs as JSON

cases.json: {"cases": [{"suite": "ell2"|"tai", "pk": hex, "alpha": hex,
"pi": hex, "validate_key": bool (default true)}]}; the answer holds, per
case, {"valid": bool, "beta": hex or null, "code": str or null}.
keys.json: {"cases": [{"suite", "sk": hex, "alpha": hex}]}; the answer
holds, per case, {"pk": hex, "pi": hex}.
"""
import hashlib
import json
import sys

# RFC 8032 section 5.1: edwards25519.
P = 2**255 - 19
Q = 2**252 + 27742317777372353535851937790883648493
D = (-121665 * pow(121666, P - 2, P)) % P
SQRT_M1 = pow(2, (P - 1) // 4, P)
SUITE = {"tai": 3, "ell2": 4}
IDENTITY = (0, 1, 1, 0)


def inv(x):
    return pow(x, P - 2, P)


def sha512(data):
    return hashlib.sha512(data).digest()


# Points in extended coordinates (X, Y, Z, T): x = X/Z, y = Y/Z, x*y = T/Z.
def add(p1, p2):
    # RFC 8032 section 5.1.4, a = -1.
    x1, y1, z1, t1 = p1
    x2, y2, z2, t2 = p2
    a = (y1 - x1) * (y2 - x2) % P
    b = (y1 + x1) * (y2 + x2) % P
    c = 2 * t1 * t2 * D % P
    d = 2 * z1 * z2 % P
    e, f, g, h = b - a, d - c, d + c, b + a
    return (e * f % P, g * h % P, f * g % P, e * h % P)


def mul(s, pt):
    result = IDENTITY
    while s > 0:
        if s & 1:
            result = add(result, pt)
        pt = add(pt, pt)
        s >>= 1
    return result


def neg(pt):
    x, y, z, t = pt
    return (-x % P, y, z, -t % P)


def is_identity(pt):
    x, y, z, _ = pt
    return x % P == 0 and (y - z) % P == 0


def from_affine(x, y):
    return (x % P, y % P, 1, x * y % P)


def recover_x(y, sign):
    # RFC 8032 section 5.1.3 steps 2-4, for y already reduced.
    x2 = (y * y - 1) * inv(D * y * y + 1) % P
    if x2 == 0:
        return None if sign else 0
    x = pow(x2, (P + 3) // 8, P)
    if (x * x - x2) % P != 0:
        x = x * SQRT_M1 % P
    if (x * x - x2) % P != 0:
        return None
    if (x & 1) != sign:
        x = P - x
    return x


def decode(s):
    """RFC 8032 decoding: None unless s is the canonical encoding of a point."""
    if len(s) != 32:
        return None
    y = int.from_bytes(s, "little")
    sign = y >> 255
    y &= (1 << 255) - 1
    if y >= P:
        return None
    x = recover_x(y, sign)
    return None if x is None else from_affine(x, y)


def decodes_leniently(s):
    """True when s names a point once y is reduced mod p and x = -0 is allowed."""
    y = int.from_bytes(s, "little")
    sign = y >> 255
    y = (y & ((1 << 255) - 1)) % P
    x2 = (y * y - 1) * inv(D * y * y + 1) % P
    return x2 == 0 or recover_x(y, sign) is not None or recover_x(y, 1 - sign) is not None


def encode(pt):
    x, y, z, _ = pt
    zi = inv(z)
    x, y = x * zi % P, y * zi % P
    return (y | ((x & 1) << 255)).to_bytes(32, "little")


BASE = from_affine(recover_x(4 * inv(5) % P, 0), 4 * inv(5) % P)


# RFC 9380: expand_message_xmd with SHA-512, hash_to_field, Elligator 2.
def expand_message_xmd(msg, dst, length):
    b_in, s_in = 64, 128
    ell = -(-length // b_in)
    dst_prime = dst + bytes([len(dst)])
    b0 = sha512(bytes(s_in) + msg + length.to_bytes(2, "big") + b"\x00" + dst_prime)
    b = [sha512(b0 + b"\x01" + dst_prime)]
    for i in range(2, ell + 1):
        b.append(sha512(bytes(x ^ y for x, y in zip(b0, b[-1])) + bytes([i]) + dst_prime))
    return b"".join(b)[:length]


def is_square(a):
    return a % P == 0 or pow(a, (P - 1) // 2, P) == 1


def sqrt_with_sign(a, sign):
    r = pow(a, (P + 3) // 8, P)
    if (r * r - a) % P != 0:
        r = r * SQRT_M1 % P
    assert (r * r - a) % P == 0
    return r if r % 2 == sign else (P - r) % P


def elligator2_curve25519(u):
    # RFC 9380 section 6.7.1 with J = 486662, K = 1, Z = 2.
    j, z = 486662, 2
    den = (1 + z * u * u) % P
    x1 = (-j) * (inv(den) if den else 0) % P
    if x1 == 0:
        x1 = -j % P
    gx1 = (x1**3 + j * x1 * x1 + x1) % P
    x2 = (-x1 - j) % P
    gx2 = (x2**3 + j * x2 * x2 + x2) % P
    if is_square(gx1):
        return x1, sqrt_with_sign(gx1, 1)
    return x2, sqrt_with_sign(gx2, 0)


def to_edwards25519(s, t):
    # RFC 9380 section 6.8.2 / appendix D: the RFC 7748 rational map, sgn0(c1) = 0.
    if t == 0 or (s + 1) % P == 0:
        return from_affine(0, 1)
    c1 = sqrt_with_sign(-486664 % P, 0)
    return from_affine(c1 * s * inv(t), (s - 1) * inv(s + 1))


def encode_to_curve_ell2(salt, alpha):
    dst = b"ECVRF_edwards25519_XMD:SHA-512_ELL2_NU_" + bytes([SUITE["ell2"]])
    u = int.from_bytes(expand_message_xmd(salt + alpha, dst, 48), "big") % P
    return mul(8, to_edwards25519(*elligator2_curve25519(u)))


def encode_to_curve_tai(salt, alpha):
    for ctr in range(256):
        h = sha512(bytes([SUITE["tai"], 1]) + salt + alpha + bytes([ctr, 0]))
        pt = decode(h[:32])
        if pt is not None:
            pt = mul(8, pt)
            if not is_identity(pt):
                return pt
    raise ValueError("try-and-increment failed")


def encode_to_curve(suite, salt, alpha):
    return encode_to_curve_ell2(salt, alpha) if suite == "ell2" else encode_to_curve_tai(salt, alpha)


# RFC 9381 section 5.
def expand_secret(sk):
    h = sha512(sk)
    x = int.from_bytes(h[:32], "little")
    x &= (1 << 254) - 8
    x |= 1 << 254
    return x, h[32:]


def challenge(suite, points):
    data = bytes([SUITE[suite], 2]) + b"".join(points) + b"\x00"
    return int.from_bytes(sha512(data)[:16], "little")


def proof_to_hash(suite, gamma):
    return sha512(bytes([SUITE[suite], 3]) + encode(mul(8, gamma)) + b"\x00")


def prove(suite, sk, alpha):
    x, prefix = expand_secret(sk)
    pk = encode(mul(x, BASE))
    h = encode_to_curve(suite, pk, alpha)
    h_string = encode(h)
    gamma = mul(x, h)
    k = int.from_bytes(sha512(prefix + h_string), "little") % Q
    c = challenge(suite, [pk, h_string, encode(gamma), encode(mul(k, BASE)), encode(mul(k, h))])
    s = (k + c * x) % Q
    return encode(gamma) + c.to_bytes(16, "little") + s.to_bytes(32, "little")


def classify_bad_point(s, not_a_point):
    return "not_canonical" if decodes_leniently(s) else not_a_point


def verify(suite, pk, alpha, pi, validate_key=True):
    """Returns (beta or None, code or None)."""
    if len(pk) != 32 or len(pi) != 80:
        return None, "bad_length"
    y = decode(pk)
    if y is None:
        return None, classify_bad_point(pk, "bad_public_key")
    if validate_key and is_identity(mul(8, y)):
        return None, "bad_public_key"
    gamma = decode(pi[:32])
    if gamma is None:
        return None, classify_bad_point(pi[:32], "bad_proof")
    c = int.from_bytes(pi[32:48], "little")
    s = int.from_bytes(pi[48:], "little")
    if s >= Q:
        return None, "not_canonical"
    h = encode_to_curve(suite, pk, alpha)
    u = add(mul(s, BASE), neg(mul(c, y)))
    v = add(mul(s, h), neg(mul(c, gamma)))
    if challenge(suite, [pk, encode(h), encode(gamma), encode(u), encode(v)]) != c:
        return None, "bad_proof"
    return proof_to_hash(suite, gamma), None


def check_vectors(path):
    with open(path) as f:
        doc = json.load(f)
    failures = []
    for v in doc["vectors"]:
        sk, alpha, suite = bytes.fromhex(v["sk"]), bytes.fromhex(v["alpha"]), v["suite"]
        pk = encode(mul(expand_secret(sk)[0], BASE))
        checks = {
            "pk": pk.hex() == v["pk"],
            "H": encode(encode_to_curve(suite, pk, alpha)).hex() == v["H"],
            "pi": prove(suite, sk, alpha).hex() == v["pi"],
        }
        beta, code = verify(suite, bytes.fromhex(v["pk"]), alpha, bytes.fromhex(v["pi"]))
        checks["beta"] = code is None and beta.hex() == v["beta"]
        failures += [f"example {v['example']}: {name}" for name, ok in checks.items() if not ok]
    print(json.dumps({"checked": len(doc["vectors"]), "failures": failures}))
    return 1 if failures else 0


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--vectors":
        return check_vectors(sys.argv[2])
    if len(sys.argv) == 2 and sys.argv[1] == "--prove":
        proofs = []
        for case in json.load(sys.stdin)["cases"]:
            sk = bytes.fromhex(case["sk"])
            pi = prove(case["suite"], sk, bytes.fromhex(case["alpha"]))
            proofs.append({"pk": encode(mul(expand_secret(sk)[0], BASE)).hex(), "pi": pi.hex()})
        print(json.dumps({"results": proofs}))
        return 0
    results = []
    for case in json.load(sys.stdin)["cases"]:
        beta, code = verify(
            case["suite"],
            bytes.fromhex(case["pk"]),
            bytes.fromhex(case["alpha"]),
            bytes.fromhex(case["pi"]),
            case.get("validate_key", True),
        )
        results.append({"valid": code is None, "beta": beta.hex() if beta else None, "code": code})
    print(json.dumps({"results": results}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
