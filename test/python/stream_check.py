#!/usr/bin/env python3
"""Independent check of fairtable's random stream, written from docs/SPEC.md §6 alone.

Reads the vectors file named on the command line and recomputes every value
with Python's standard library. Prints one line per case and exits 1 on the
first difference. Also usable as: stream_check.py --below N --seed HEX --label T --count K
"""
import hashlib, json, struct, sys


class Stream:
    def __init__(self, seed: bytes, label: str):
        lab = label.encode("utf-8")
        self.key = hashlib.sha256(b"fairtable/stream/v1\x00" + seed + struct.pack(">I", len(lab)) + lab).digest()
        self.buf, self.counter, self.consumed = b"", 0, 0

    def byte(self) -> int:
        if not self.buf:
            self.buf = hashlib.sha256(self.key + struct.pack(">Q", self.counter)).digest()
            self.counter += 1
        b, self.buf = self.buf[0], self.buf[1:]
        self.consumed += 1
        return b

    def below(self, n: int) -> int:
        if n == 1:
            return 0
        bits = (n - 1).bit_length()
        k = (bits + 7) // 8
        while True:
            x = self.byte() & (0xFF >> (8 * k - bits))
            for _ in range(k - 1):
                x = x * 256 + self.byte()
            if x < n:
                return x

    def shuffle(self, items):
        a = list(items)
        for i in range(len(a) - 1, 0, -1):
            j = self.below(i + 1)
            a[i], a[j] = a[j], a[i]
        return a

    def weighted(self, weights):
        r, c = self.below(sum(weights)), 0
        for i, w in enumerate(weights):
            c += w
            if r < c:
                return i


def check(case) -> list:
    seed, label = bytes.fromhex(case["seed"]), case["label"]
    bad = []
    s = Stream(seed, label)
    if bytes(s.byte() for _ in range(64)).hex() != case["bytes64"]:
        bad.append("bytes64")
    for name, n, count in (("below6", 6, 20), ("below1000", 1000, 10), ("below2pow53", 2**53, 5)):
        s = Stream(seed, label)
        if [s.below(n) for _ in range(count)] != case[name]:
            bad.append(name)
    s = Stream(seed, label)
    if [s.below(1) for _ in range(3)] != case["below1"] or s.consumed != case["below1_consumed"]:
        bad.append("below1")
    s = Stream(seed, label)
    if [s.below(20) + 1 for _ in range(10)] != case["dice20"]:
        bad.append("dice20")
    s = Stream(seed, label)
    if s.shuffle(range(10)) != case["shuffle10"]:
        bad.append("shuffle10")
    s = Stream(seed, label)
    w = case["weighted"]
    if [s.weighted(w["weights"]) for _ in range(10)] != w["picks"]:
        bad.append("weighted")
    return bad


def main() -> int:
    args = sys.argv[1:]
    if args and args[0] == "--below":
        opts = dict(zip(args[0::2], args[1::2]))
        s = Stream(bytes.fromhex(opts["--seed"]), opts["--label"])
        print("\n".join(str(s.below(int(opts["--below"]))) for _ in range(int(opts.get("--count", "1")))))
        return 0
    cases = json.load(open(args[0]))["cases"]
    failed = 0
    for i, case in enumerate(cases):
        bad = check(case)
        print(f"case {i} ({case['label']!r}): {'ok' if not bad else 'MISMATCH ' + ','.join(bad)}")
        failed += bool(bad)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
