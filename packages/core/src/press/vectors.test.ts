import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { fromHex, toHex } from '../bytes.js';
import {
  keyHashOf,
  openBox,
  talkId,
  talkSigningBytes,
  talkText,
  TalkReader,
  unwrapContentKey,
  wrapContext,
  writeTalk,
  type PressMode,
  type TalkDraft,
} from './index.js';

interface Case {
  name: string;
  mode: PressMode;
  draft: TalkDraft;
  random: string[];
  signingBytes: string | null;
  text: string;
  id: string;
  contentKey?: string;
  keyHash?: string;
  wrapContexts?: Record<string, string>;
}
const vectors = JSON.parse(readFileSync(new URL('./vectors.json', import.meta.url), 'utf8')) as {
  seeds: Record<string, string>;
  players: { id: string; key: string }[];
  game: string;
  cases: Case[];
};

describe('press vectors (docs/spec/press.md §9)', () => {
  for (const c of vectors.cases) {
    it(c.name, () => {
      let i = 0;
      const random = (n: number): Uint8Array => fromHex(c.random[i++]!, 'random', n);
      const m = writeTalk(c.draft, { mode: c.mode, secretKey: fromHex(vectors.seeds[c.draft.from]!), players: vectors.players, random });
      expect(i).toBe(c.random.length);
      expect(talkText(m)).toBe(c.text);
      expect(talkId(m)).toBe(c.id);
      expect(m.sig === undefined ? null : toHex(talkSigningBytes(m))).toBe(c.signingBytes);
      if (Array.isArray(c.draft.to)) {
        for (const r of c.draft.to) expect(toHex(unwrapContentKey(m, r, fromHex(vectors.seeds[r]!)))).toBe(c.contentKey);
        expect(keyHashOf(fromHex(c.contentKey!))).toBe(c.keyHash);
        for (const [reader, context] of Object.entries(c.wrapContexts!)) expect(wrapContext(m, reader)).toBe(context);
        const author = fromHex(vectors.players.find((p) => p.id === c.draft.from)!.key);
        expect(openBox(m, fromHex(c.contentKey!), c.mode, author)).toMatchObject({ ok: true, body: c.draft.body });
      }
      // every seat reads it from the text alone; the recipients (and the author) see the body
      for (const p of vectors.players) {
        const reader = new TalkReader({
          game: vectors.game,
          players: vectors.players,
          rules: { rule: 'full', mode: c.mode },
          me: { id: p.id, secretKey: fromHex(vectors.seeds[p.id]!) },
        });
        const r = reader.read(c.text);
        expect(r.kind).toBe('shown');
        const canRead = !Array.isArray(c.draft.to) || c.draft.to.includes(p.id) || p.id === c.draft.from;
        if (r.kind === 'shown') expect(r.talk.body).toBe(canRead ? c.draft.body : null);
      }
    });
  }
});
