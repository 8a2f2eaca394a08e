import { describe, expect, it } from 'vitest';
import { simulate, SIM_PROTOCOLS } from './simulate.js';
import { GENERIC_CHEATS, type Cheat } from './player.js';
import { auditLines } from '../audit.js';
import { verify } from '../identity.js';
import { toHex } from '../bytes.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { nativeSign, nativeVerify } from '@fairtable/node/native-verify.js';

/**
 * The cheating games are signed and checked with OpenSSL's Ed25519 (packages/node's fast path: the same signatures,
 * and the same verdicts, for OpenSSL's refusals are asked of noble again; its differential test proves both). Each
 * protocol's honest game below stays on noble, as a browser plays and audits it.
 */
const ed25519 = { sign: nativeSign, verify: nativeVerify } as const;

/** The violation each cheat must produce, per protocol family; the cheater is always named. */
function expectedCode(protocol: string, cheat: Cheat): string {
  switch (cheat) {
    case 'wrong-opening':
      return protocol === 'keyed-stream' ? 'audit_mismatch' : 'commit_mismatch';
    case 'equivocate':
      return 'equivocation';
    case 'replay':
      return 'wrong_game';
    case 'withhold':
      return 'withheld';
    case 'forge':
      return 'bad_signature';
    case 'out-of-turn':
      return 'out_of_turn';
    case 'tamper':
      return 'broken_chain';
    case 'house-wrong-signature':
      return 'bad_vrf_proof';
    case 'house-withhold':
      return 'withheld';
    case 'house-key-swap':
      return 'key_swap';
    case 'player-wrong-hr':
      return 'commit_mismatch';
    case 'player-reuse-r':
      return 'reused_r';
    // The beacon escrow's cheats are tested with escrow on (protocols/beacon-escrow.test.ts).
    case 'escrow-bad-deal':
    case 'escrow-wrong-share':
    case 'escrow-short-deal':
      return 'bad_share';
    case 'escrow-withhold-share':
    case 'escrow-withhold-check':
    case 'escrow-withhold-answer':
      return 'withheld';
    case 'escrow-bad-check':
    case 'escrow-reveal-wrong-set':
      return 'commit_set_mismatch';
    case 'escrow-self-complaint':
      return 'unexpected_message';
    case 'escrow-false-complaint':
      return 'none';
    // Layered escrow's cheats are tested with layers on (protocols/beacon-layers.test.ts, the Diplomacy machine's tests).
    case 'layers-bad-box':
    case 'layers-bad-body':
    case 'layers-inside-differs':
      return 'bad_layer';
    case 'layers-refuse-peel':
      return 'withheld';
    case 'layers-bad-peel':
      return 'bad_share';
  }
}

/** Withholdings whose deadline claim is the game's last word: no later line of another player vouches for it. */
const TAIL_WITHHOLDS = new Set(['rochambeau:withhold', 'signidice:house-withhold']);

/** Cheats at the envelope layer, which an orderer refuses at its door (docs/SPEC.md §10.1). */
const DOOR_CHEATS = new Set<Cheat>(['equivocate', 'replay', 'forge']);

describe('every cheat on every protocol is caught and the cheater named', () => {
  for (const protocol of SIM_PROTOCOLS) {
    it(`${protocol}: honest play on a lossy, duplicating, reordering network is valid`, () => {
      const r = simulate({ protocol, players: 3, seed: new Uint8Array(32).fill(9), turns: 2, drop: 0.1, duplicate: 0.1, maxDelay: 50 });
      const verdict = auditLines(r.lines);
      expect(verdict.violations).toEqual([]);
      expect(verdict.valid).toBe(true);
      expect(verdict.outcome).not.toBeNull();
    });
    const cheats: readonly Cheat[] =
      protocol === 'signidice'
        ? [...GENERIC_CHEATS, 'house-wrong-signature', 'house-withhold', 'house-key-swap', 'player-wrong-hr', 'player-reuse-r']
        : GENERIC_CHEATS;
    for (const cheat of cheats) {
      it(`${protocol}: ${cheat}`, () => {
        const cheater = cheat.startsWith('house-') ? 'house' : 'p2';
        const r = simulate({ protocol, players: 3, seed: new Uint8Array(32).fill(11), turns: 2, cheat, cheater, drop: 0.05, duplicate: 0.05, ...ed25519 });
        if (DOOR_CHEATS.has(cheat)) {
          // Refused at the table's door and named there, with the envelope as evidence; never recorded.
          const refusal = r.refusals.find((x) => x.code === expectedCode(protocol, cheat));
          expect(refusal?.player).toBe(cheater);
          expect(refusal!.evidence.length).toBeGreaterThan(0);
          expect(r.refusals.every((x) => x.player === cheater)).toBe(true);
          for (const v of auditLines(r.lines, { verify: nativeVerify }).violations) expect([cheater, null]).toContain(v.player);
          return;
        }
        const verdict = auditLines(r.lines, { verify: nativeVerify });
        expect(verdict.valid).toBe(false);
        const first = verdict.violations[0]!;
        expect(first.code).toBe(expectedCode(protocol, cheat));
        if (TAIL_WITHHOLDS.has(`${protocol}:${cheat}`)) {
          // The claim that names the withholder ends the game: it stands in the unvouched tail and the audit
          // names nobody (docs/SPEC.md §4.4); the honest seats, who saw the log live, named it (below).
          expect(first.player).toBeNull();
          expect(first.message).toMatch(new RegExp(`deadline claim names ${cheater} withheld`));
          expect(r.violations.some((v) => v.code === 'withheld' && v.player === cheater)).toBe(true);
          return;
        }
        expect(first.player).toBe(cheater);
        expect(first.evidence.length).toBeGreaterThan(0);
        // No honest player is ever blamed.
        for (const v of verdict.violations) expect([cheater, null]).toContain(v.player);
        // The honest players' own referees saw the same thing live (tamper happens after the game).
        if (cheat !== 'tamper') expect(r.violations.some((v) => v.code === first.code && v.player === cheater)).toBe(true);
      });
    }
  }
});

describe('the beacon among many players', () => {
  it('100 players agree on one seed in two broadcast rounds', () => {
    // All 100 referees check the same 201 lines; a shared cache of verification results (same answers,
    // each signature checked once) keeps the test to seconds. Signature checking itself is tested elsewhere.
    const cache = new Map<string, boolean>();
    const verifyOnce = (sig: Uint8Array, msg: Uint8Array, pk: Uint8Array): boolean => {
      const id = toHex(sig) + toHex(pk) + toHex(sha256(msg));
      let ok = cache.get(id);
      if (ok === undefined) cache.set(id, (ok = verify(sig, msg, pk)));
      return ok;
    };
    const r = simulate({ protocol: 'beacon', players: 100, seed: new Uint8Array(32).fill(5), verify: verifyOnce });
    expect(r.lines.length).toBe(1 + 200);
    const verdict = auditLines(r.lines);
    expect(verdict.valid).toBe(true);
    const seeds = (verdict.outcome!.summary as { seeds: { seed: string }[] }).seeds;
    expect(seeds).toHaveLength(1);
    expect(seeds[0]!.seed).toMatch(/^[0-9a-f]{64}$/);
  });
});
