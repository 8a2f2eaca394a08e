/**
 * An "Examples:" section at the end of each command's `--help`, in one table so
 * that the examples read alike across commands and a test (`new-user.test.ts`)
 * can check that every option they use is one the command declares. The
 * examples are those of README.md where it has them.
 */
import type { Command } from 'commander';

/** Examples by command path ('' is `fairtable` itself), each a command line and what it does. */
export const EXAMPLES: Readonly<Record<string, readonly (readonly [string, string])[]>> = {
  '': [
    ['fairtable demo', 'a local game, honest and with a cheater, both audited'],
    ['fairtable relay', 'a relay and the web app on http://localhost:8080'],
    ['fairtable keygen --name alice --out alice.json > alice.pub.json', 'your identity'],
    ['fairtable simulate dice --players 4 --cheat wrong-opening --cheater p2 --out cheat.jsonl', 'a game with a cheater'],
    ['fairtable audit cheat.jsonl', 'names p2, with the evidence'],
    ['fairtable mail --help', 'a game by e-mail'],
  ],
  keygen: [['fairtable keygen --name alice --out alice.json > alice.pub.json', 'the secret in alice.json, the public part to share in alice.pub.json']],
  random: [
    ['fairtable random --seed $(openssl rand -hex 32) --label dice --dice 6 --count 10', 'ten d6 rolls of the stream'],
    ['fairtable random --seed SEED --label deck --shuffle 52', 'a shuffled deck of the same seed'],
  ],
  armor: [['fairtable armor game.jsonl > move.txt', 'a block to paste into an e-mail']],
  dearmor: [
    ['fairtable dearmor move.txt', 'checks the checksum, prints the envelopes'],
    ['fairtable dearmor - < saved-mail.eml', 'from a whole saved e-mail, quoting and all'],
  ],
  audit: [
    ['fairtable audit game.jsonl', 'exit 0 valid, 1 a violation (named, with evidence), 2 unreadable'],
    ['fairtable audit game.jsonl --json', 'the verdict as one JSON object'],
    ['fairtable audit game.jsonl --relay-key KEY', 'also the relay receipts in game.jsonl.receipts.jsonl'],
  ],
  simulate: [
    ['fairtable simulate monopoly --players 3 --turns 10 --out game.jsonl', 'an honest game'],
    ['fairtable simulate dice --players 4 --cheat wrong-opening --cheater p2 --out cheat.jsonl', 'p2 cheats; audit names p2'],
    ['fairtable simulate signidice --players 3 --cheat house-key-swap --out roulette.jsonl', 'the house cheats'],
    ['fairtable simulate rochambeau --players 5 --states 101 --out rps.jsonl', 'Rochambeau with 101 states'],
    ['fairtable simulate holdem --players 3 --cheat bad-shuffle --out holdem.jsonl', "Hold'em on the deck; p1's shuffle is caught"],
    ['fairtable simulate crazy-eights --players 3 --cheat card-not-dealt --out eights.jsonl', 'Crazy Eights on the deck; p1 plays a card it was not dealt'],
  ],
  demo: [['fairtable demo --dir demo', 'keeps the two transcripts in demo/']],
  'vrf keygen': [['fairtable vrf keygen --suite ell2', '{"sk": HEX, "pk": HEX}']],
  'vrf prove': [['fairtable vrf prove --suite ell2 --sk SK --alpha 616263', '{"pi": HEX, "beta": HEX}']],
  'vrf verify': [['fairtable vrf verify --suite ell2 --pk PK --alpha 616263 --pi PI', 'prints beta, exit 0; or the reason, exit 1']],
  'rochambeau judge': [['fairtable rochambeau judge game.json', "the winner, each round's tweaks, states and scores"]],
  'signidice house': [
    [
      'fairtable signidice house --relay http://localhost:8080 --key house.json --players bob.pub.json --rounds 3 --out casino.jsonl',
      'prints GAME_ID INVITE_URL',
    ],
    ['fairtable signidice house --relay http://localhost:8080 --key house.json --resume casino.jsonl', 'the house back after a crash'],
  ],
  'signidice play': [['fairtable signidice play --relay http://localhost:8080 --game GAME_ID --key bob.json --bet straight:17:5', "bob's bet each round"]],
  'diplomacy adjudicate': [['fairtable diplomacy adjudicate phase.json', 'the next position, a result per order, the hash']],
  'diplomacy orders': [
    ['fairtable diplomacy orders --power france --phase S1901M orders.txt', "each order's canonical form or its error"],
    ['fairtable diplomacy orders --power england --phase F1903M --position p.json --offered', 'every order England is offered, by unit'],
  ],
  'diplomacy assign': [['fairtable diplomacy assign --prefs prefs.txt', 'the powers from the preference lists']],
  'diplomacy newcomer-consent': [
    [
      'fairtable diplomacy newcomer-consent --game GAME_ID --power france --key nia.json --name Nia > nia.newcomer.json',
      "nia's consent to take over France, for a player to propose (play --propose-newcomer)",
    ],
  ],
  mail: [
    ['fairtable mail new dice --dir game-a --key alice.json --players alice.pub.json,bob.pub.json', 'alice creates; she mails game-a/outbox/* to bob'],
    ['fairtable mail read --dir game-b --key bob.json saved-mail.eml', 'bob takes his seat from the saved e-mail; he mails game-b/outbox/* back'],
    ['fairtable mail status --dir game-b', 'whose move, the decision and its answers, the deadline'],
    ['fairtable mail decide --dir game-b null', 'bob rolls; every command says what to mail next'],
    ['fairtable mail transcript --dir game-b --out game.jsonl', 'at the end, for fairtable audit game.jsonl'],
  ],
  'mail new': [
    [
      'fairtable mail new dice --dir game-a --key alice.json --players alice.pub.json,bob.pub.json --turns 3 --timeout 3d',
      'then mail game-a/outbox/* to the others',
    ],
  ],
  'mail read': [
    ['fairtable mail read --dir game-b --key bob.json invitation.eml', 'joins the game an invitation opens'],
    ['fairtable mail read --dir game-b --pgp-key bob.sec.asc saved.eml', 'mail encrypted to your OpenPGP key'],
  ],
  'mail decide': [
    ['fairtable mail decide --dir game-b null', 'roll when ready'],
    ['fairtable mail decide --dir game-b 2', 'a Rochambeau hand'],
    ['fairtable mail decide --dir game-b --orders orders.txt --draft', 'Diplomacy with --revisable: orders a later decide replaces'],
  ],
  'mail status': [['fairtable mail status --dir game-b', 'who acts next, your decision and its choices, the deadline, the press to you']],
  'mail press': [
    ['fairtable mail press --dir game-b --to england,france "Shall we split the Low Countries?"', 'private press, sealed to England and France'],
    ['fairtable mail press --dir game-b --to all "Peace in our time."', 'to the whole table (observers read it too)'],
  ],
  'mail ready': [['fairtable mail ready --dir game-b', 'a revisable game: your draft orders are final']],
  'mail transcript': [['fairtable mail transcript --dir game-b --out mail-game.jsonl', 'then: fairtable audit mail-game.jsonl']],
  play: [
    [
      'fairtable play dice --relay http://localhost:8080 --key alice.json --players alice.pub.json,bob.pub.json --turns 3',
      'creates the game: prints GAME_ID INVITE_URL',
    ],
    ['fairtable play --relay http://localhost:8080 --key bob.json --join GAME_ID', 'bob takes his seat'],
    [
      'fairtable play --relay http://localhost:8080 --key bob.json --join GAME_ID --propose-newcomer nia.newcomer.json',
      'Diplomacy: bob proposes nia for an absent power; the others give --approve-newcomer nia.pub.json',
    ],
    ['fairtable play --relay http://localhost:8080 --key nia.json --join GAME_ID --as-newcomer', 'nia plays the power once she is proposed'],
    [
      'fairtable play dice --roll 4d6kh3+1 --relay http://localhost:8080 --key alice.json --players alice.pub.json,bob.pub.json',
      'each turn rolls four d6, keeps the highest three, adds 1',
    ],
  ],
  fetch: [['fairtable fetch --relay http://localhost:8080 --game GAME_ID --out game.jsonl', 'and game.jsonl.receipts.jsonl']],
  talk: [
    ['fairtable talk --relay http://localhost:8080 --game GAME_ID --key alice.json "Good luck, all."', 'to the whole table'],
    ['fairtable talk --relay http://localhost:8080 --game GAME_ID --key alice.json --to bob,cy "Between us three."', 'sealed to bob and cy'],
    ['fairtable talk read --relay http://localhost:8080 --game GAME_ID --key bob.json', "every message checked; bob's private ones opened"],
  ],
  'pgp sign': [['fairtable pgp sign --key alice.sec.asc game.jsonl > game.jsonl.asc', 'as gpg --detach-sign --armor']],
  'pgp verify': [['fairtable pgp verify --key alice.pub.asc game.jsonl game.jsonl.asc', 'exit 0 valid, 1 not, 2 unreadable']],
  'pgp statement': [['fairtable pgp statement --fairtable-key alice.pub.json --pgp-key alice.pub.asc > alice.binding.txt', 'to sign with gpg']],
  'pgp bind': [['fairtable pgp bind --key alice.sec.asc --fairtable-key alice.pub.json > alice.binding.json', 'for mail new --binding']],
  'pgp check-binding': [
    ['fairtable pgp check-binding --key alice.pub.asc alice.binding.txt alice.binding.txt.asc', 'exit 0 when it holds'],
    [
      'fairtable pgp check-binding --key alice.pub.asc alice.binding.txt alice.binding.txt.asc --entry > alice.binding.json',
      'signed with gpg: the entry for mail new --binding',
    ],
  ],
  'pgp encrypt': [['fairtable pgp encrypt --to bob.pub.asc --sign alice.sec.asc move.txt > move.asc', 'for bob, signed by alice']],
  'pgp decrypt': [['fairtable pgp decrypt --key bob.sec.asc --verify alice.pub.asc move.asc', "exit 1 unless alice's signature is inside"]],
  relay: [
    ['fairtable relay', 'port $PORT or 8080, data in $DATA_DIR or ./data; open it in a browser to play'],
    ['fairtable relay --port 8090 --data ./casino-relay', 'another port and folder'],
    ['fairtable relay --games-per-minute 600 --connections-per-address 5000', 'behind one proxy address, or for a load test from one machine'],
    ['fairtable relay --witness https://witness.example.org', "new games name that witness relay, so a censored move leaves evidence beyond this relay's word"],
  ],
};

/** The command's path below `fairtable`: 'mail new', 'audit', '' for the program. */
export function commandPath(cmd: Command): string {
  const names: string[] = [];
  for (let c = cmd; c.parent !== null; c = c.parent) names.unshift(c.name());
  return names.join(' ');
}

/** Every command under `cmd`, `cmd` included. */
export function allCommands(cmd: Command): Command[] {
  return [cmd, ...cmd.commands.flatMap((c) => allCommands(c))];
}

/** Adds each command's examples to the end of its help. */
export function addExamples(program: Command): void {
  for (const cmd of allCommands(program)) {
    const examples = EXAMPLES[commandPath(cmd)];
    if (examples === undefined) continue;
    const text = examples.map(([line, what]) => `  # ${what}\n  $ ${line}`);
    cmd.addHelpText('after', `\nExamples:\n${text.join('\n')}\n`);
  }
}
