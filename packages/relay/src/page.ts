/**
 * The page `GET /` serves until the web app exists (docs/spec/relay.md §3): what this relay is and how
 * to play through it with the `fairtable` command.
 */

export function homePage(relayKey: string): string {
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>fairtable relay</title>
<style>body{font-family:system-ui,sans-serif;max-width:44rem;margin:2rem auto;padding:0 1rem;line-height:1.5}code,pre{background:#f3f3f3;padding:.1rem .3rem}pre{padding:.6rem;overflow-x:auto}</style>
</head>
<body>
<h1>fairtable relay</h1>
<p>This relay orders, stores and passes on signed moves for games played with <strong>fairtable</strong>.
It is not trusted: every player checks every line, and the relay signs a receipt for each line it stores,
which is evidence against it if it lies.</p>
<p>The relay's key: <code>${relayKey}</code></p>
<h2>Play with the command line</h2>
<pre>npx fairtable keygen --name ann --out ann.key.json
# each player sends the creator their public key file, then the creator starts the game:
npx fairtable play dice --relay URL --key ann.key.json --players ann.pub.json,bob.pub.json
# the others join with the game id it prints:
npx fairtable play --relay URL --key bob.key.json --join GAME_ID
# anyone can fetch and audit the transcript:
npx fairtable fetch --relay URL --game GAME_ID --out game.jsonl
npx fairtable audit game.jsonl</pre>
<p>Endpoints: <code>POST /games</code>, <code>GET /games/:game</code>, <code>/games/:game/transcript</code>,
<code>/games/:game/receipts</code>, WebSocket <code>/games/:game/ws</code>, <code>/health</code>, <code>/metrics</code>.</p>
</body>
</html>
`;
}
