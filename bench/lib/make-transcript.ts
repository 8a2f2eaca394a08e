/**
 * Writes a long honest transcript fast, for the audit benchmarks: two players
 * play the chain-protocol dice game for as many turns as asked. Envelopes are
 * signed with node:crypto (OpenSSL), which gives the same bytes as noble
 * (Ed25519 signatures are deterministic); the writers' own referees trust
 * their own signatures, since the point is to produce, not to check.
 */
import { createWriteStream, existsSync, mkdirSync, renameSync } from 'node:fs';
import { dirname } from 'node:path';
import { toHex } from '@fairtable/core/bytes.js';
import { envelopeHash, envelopeLine, signEnvelope, type Body } from '@fairtable/core/envelope.js';
import { createSetupEnvelope } from '@fairtable/core/setup.js';
import { nativeSign } from '@fairtable/node/native-verify.js';
import { Referee } from '@fairtable/core/referee.js';
import { simKeys } from '@fairtable/core/testing';
import { RandomStream } from '@fairtable/core/stream.js';
import { taggedHash } from '@fairtable/core/hash.js';

export async function makeTranscript(path: string, envelopes: number, onProgress?: (n: number) => void): Promise<void> {
  if (existsSync(path)) return;
  mkdirSync(dirname(path), { recursive: true });
  const seed = taggedHash('bench', new Uint8Array([envelopes & 255]));
  const keys = [simKeys(seed, 0), simKeys(seed, 1)];
  const ids = ['p0', 'p1'];
  // 2 joins + 2 readies + one move per turn: the game ends exactly at the asked size (rounded up to even).
  const rounds = Math.max(1, Math.ceil((envelopes - 4) / 2));
  const setup = {
    protocol: 'chain',
    game: 'dice',
    params: { rounds, timeoutMs: 30_000 },
    players: keys.map((k, i) => ({ id: ids[i]!, key: toHex(k.publicKey) })),
    nonce: toHex(seed),
    created: 0,
  };
  const setupLine = envelopeLine(createSetupEnvelope(setup, 'p0', keys[0]!));
  const trust = (): boolean => true;
  const randoms = ids.map((id) => new RandomStream(taggedHash('bench-random', seed, new TextEncoder().encode(id)), 'r'));
  const ctxs = randoms.map((r) => ({ now: 0, random: (n: number) => r.bytes(n) }));
  const referees = ids.map((id, i) => new Referee(setupLine, id, ctxs[i], { verify: trust }));
  const queues: Body[][] = referees.map((r) => r.takeInitialOut());
  const seq = [1, 0];
  const prev = [referees[0]!.checker.hashOfLine(0)!, referees[0]!.checker.gameId];
  const tmp = `${path}.tmp`;
  const out = createWriteStream(tmp);
  out.write(setupLine + '\n');
  let lines = 1;
  let lastHash = referees[0]!.checker.hashOfLine(0)!;
  const game = referees[0]!.checker.gameId;
  for (;;) {
    const i = queues[0]!.length > 0 ? 0 : queues[1]!.length > 0 ? 1 : -1;
    if (i < 0) break;
    const body = queues[i]!.shift()!;
    const envelope = signEnvelope(
      { v: 1, game, from: ids[i]!, seq: seq[i]!, prev: prev[i]!, at: lines, head: lastHash, time: lines, body },
      keys[i]!.secretKey,
      nativeSign,
    );
    const text = envelopeLine(envelope);
    const hash = envelopeHash(envelope);
    seq[i]!++;
    prev[i] = hash;
    lastHash = hash;
    for (let j = 0; j < 2; j++) {
      const r = referees[j]!.feed({ line: lines, text, envelope, shapeError: null, hash, sigOk: true }, ctxs[j]!);
      queues[j]!.push(...r.out);
      // Dice has no actions: the mover's only decision is to roll (null).
      while (referees[j]!.decision() !== null) queues[j]!.push(...referees[j]!.decide(null, ctxs[j]!));
    }
    if (!out.write(text + '\n')) await new Promise<void>((resolve) => out.once('drain', () => resolve()));
    lines++;
    if (lines % 10_000 === 0) onProgress?.(lines);
  }
  await new Promise((resolve) => out.end(resolve));
  renameSync(tmp, path);
}
