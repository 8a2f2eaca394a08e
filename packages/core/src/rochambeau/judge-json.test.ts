import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { toHex } from '../bytes.js';
import { FairtableError } from '../errors.js';
import { judge, toPlayerTable } from './judge.js';
import { judgeInputChunks, judgeOutput, judgeOutputChunks, readJudgeInput } from './judge-json.js';
import { CONDUCTS, seededRandom, simulateGame } from './simulation.js';

const encoder = new TextEncoder();
const read = (text: string) => readJudgeInput(encoder.encode(text));
const joined = (chunks: Iterable<Uint8Array>): string => {
  const decoder = new TextDecoder();
  let text = '';
  for (const chunk of chunks) text += decoder.decode(chunk, { stream: true });
  return text + decoder.decode();
};
const hexOrNull = (bytes: Uint8Array | null): string | null => (bytes === null ? null : toHex(bytes));

function codeOf(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    if (error instanceof FairtableError) return error.code;
    throw error;
  }
  throw new Error('expected a rejection');
}

describe('readJudgeInput', () => {
  const random = seededRandom('json');
  const players = simulateGame(
    CONDUCTS.map((conduct, k) => ({ id: `p${k}`, conduct })),
    { N: 101, random },
  );

  it('reads what JSON.stringify writes, payloads included', () => {
    const text = JSON.stringify({
      N: 101,
      hash: 'sha-256',
      players: players.map((p) => ({ id: p.id, commit: hexOrNull(p.commit), reveal: hexOrNull(p.reveal) })),
    });
    const input = read(text);
    expect(input.N).toBe(101n);
    expect(input.hash).toBe('sha-256');
    expect(input).not.toHaveProperty('gameId');
    expect(judgeOutput(input.players.ids, judge(input))).toEqual(
      judgeOutput(
        players.map((p) => p.id),
        judge({ N: 101, players }),
      ),
    );
  });

  it('round-trips through judgeInputChunks, with any ids', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.string({ unit: 'grapheme' }), { maxLength: 6 }), fc.option(fc.string()), (ids, gameId) => {
        const game = simulateGame(
          ids.map((id) => ({ id })),
          { N: 7, random },
        );
        const table = toPlayerTable(game);
        const text = joined(judgeInputChunks({ N: 7n, hash: 'sha-512', ...(gameId === null ? {} : { gameId }), players: table }, 64));
        const input = readJudgeInput(encoder.encode(text));
        expect(input.players).toEqual(table);
        expect(input.hash).toBe('sha-512');
        expect(input.gameId).toBe(gameId ?? undefined);
        expect(JSON.parse(text)).toMatchObject({ N: 7 });
      }),
      { numRuns: 300 },
    );
  });

  it('reads N exactly as a number or a decimal string, however large', () => {
    expect(read('{"N": 340282366920938463463374607431768211457, "players": []}').N).toBe(2n ** 128n + 1n);
    expect(read('{"N": "340282366920938463463374607431768211457", "players": []}').N).toBe(2n ** 128n + 1n);
    expect(read('{"players": [], "N": 3}').N).toBe(3n);
  });

  it('takes white space, escapes, upper-case hex and a game id', () => {
    const input = read(' {\n\t"N" : "5" ,"game":"t\\u00e9", "players" : [ { "reveal" : null , "id" : "\\"q\\"", "commit" : "00AbCd" } ] }\r\n');
    expect(input.gameId).toBe('té');
    expect(input.players.ids).toEqual(['"q"']);
    expect([...input.players.bytes]).toEqual([0x00, 0xab, 0xcd]);
    expect(input.players.revealStart[0]).toBe(-1);
  });

  it('treats a missing commit or reveal as null', () => {
    const input = read('{"N": 5, "players": [{"id": "a"}]}');
    expect(input.players.commitStart[0]).toBe(-1);
    expect(input.players.revealStart[0]).toBe(-1);
  });

  it('refuses unreadable input with a code', () => {
    const cases: [string, string, string][] = [
      ['not JSON', 'nope', 'bad_json'],
      ['empty', '', 'bad_json'],
      ['an array', '[]', 'bad_json'],
      ['trailing text', '{"N": 5, "players": []} x', 'bad_json'],
      ['an unknown member', '{"N": 5, "players": [], "M": 3}', 'bad_json'],
      ['a repeated member', '{"N": 5, "N": 7, "players": []}', 'bad_json'],
      ['a repeated player member', '{"N": 5, "players": [{"id": "a", "id": "b"}]}', 'bad_json'],
      ['an unknown player member', '{"N": 5, "players": [{"id": "a", "state": 1}]}', 'bad_json'],
      ['a player without id', '{"N": 5, "players": [{"commit": null}]}', 'bad_json'],
      ['odd hex', '{"N": 5, "players": [{"id": "a", "commit": "abc"}]}', 'bad_json'],
      ['not hex', '{"N": 5, "players": [{"id": "a", "commit": "zz"}]}', 'bad_json'],
      ['a number for a payload', '{"N": 5, "players": [{"id": "a", "commit": 12}]}', 'bad_json'],
      ['a raw control character', '{"N": 5, "players": [{"id": "a\nb"}]}', 'bad_json'],
      ['a bad escape', '{"N": 5, "players": [{"id": "a\\x"}]}', 'bad_json'],
      ['a missing comma', '{"N": 5 "players": []}', 'bad_json'],
      ['a trailing comma', '{"N": 5, "players": [],}', 'bad_json'],
      ['a leading zero', '{"N": 05, "players": []}', 'bad_json'],
      ['N missing', '{"players": []}', 'bad_input'],
      ['players missing', '{"N": 5}', 'bad_input'],
      ['a fractional N', '{"N": 5.0, "players": []}', 'bad_input'],
      ['an exponent N', '{"N": 5e0, "players": []}', 'bad_input'],
      ['a negative N', '{"N": -5, "players": []}', 'bad_input'],
      ['N with a sign in a string', '{"N": "+5", "players": []}', 'bad_input'],
      ['an unknown hash', '{"N": 5, "hash": "md5", "players": []}', 'bad_input'],
    ];
    for (const [name, text, code] of cases)
      expect(
        codeOf(() => read(text)),
        name,
      ).toBe(code);
  });

  it('leaves N’s parity and size to the judge, which refuses an even N', () => {
    const input = read('{"N": 100, "players": []}');
    expect(() => judge(input)).toThrow(/odd/);
  });
});

describe('judgeOutputChunks', () => {
  it('writes exactly JSON.stringify(judgeOutput(…)) and a newline, whatever the chunk size', () => {
    fc.assert(
      fc.property(fc.string(), fc.integer({ min: 1, max: 400 }), fc.constantFrom(3n, 101n, 2n ** 70n + 1n), (seed, chunk, N) => {
        const random = seededRandom(seed);
        const lineup = [...CONDUCTS.map((conduct, k) => ({ id: `p${k} "é"`, conduct })), { id: 'x' }, { id: 'y' }, { id: 'z' }];
        const players = simulateGame(lineup, { N, random });
        const verdict = judge({ N, players });
        const ids = players.map((p) => p.id);
        expect(joined(judgeOutputChunks(ids, verdict, chunk))).toBe(`${JSON.stringify(judgeOutput(ids, verdict))}\n`);
      }),
      { numRuns: 200 },
    );
  });
});
