/**
 * A page with the Diplomacy orders form and the board, sharing one answer as the game page does (game.tsx), for
 * e2e/diplomacy-clicks.test.ts: the position comes from `globalThis.ordersFixture`, the seat plays England, and each
 * answer the form sends is pushed onto `globalThis.sent`.
 */
import { render } from 'preact';
import { useState } from 'preact/hooks';
import type { Decision } from '@fairtable/core/protocols/machine.js';
import type { JsonValue } from '@fairtable/core/jcs.js';
import { orderChoices } from '@fairtable/diplomacy/protocol/options.js';
import { readPosition } from '@fairtable/diplomacy/position.js';
import { standardMap } from '@fairtable/diplomacy/standard.js';
import type { TableView } from '../src/board.js';
import { DecisionForm, initial } from '../src/decision.js';
import { Diplomacy } from '../src/diplomacy-board.js';

const g = globalThis as unknown as { ordersFixture: { power: string; position: unknown }; sent: JsonValue[] };
g.sent = [];
const position = readPosition(standardMap, g.ordersFixture.position);
const decision: Decision = {
  kind: 'orders',
  prompt: `Your orders for ${g.ordersFixture.power}`,
  choices: orderChoices(standardMap, position, g.ordersFixture.power),
  deadline: 0,
};

function Page() {
  const [value, setValue] = useState<JsonValue>(() => initial(decision.choices));
  const view: TableView = {
    protocol: 'diplomacy',
    game: null,
    players: ['ann', 'bob'],
    state: { powers: { ann: 'england', bob: 'france' }, stage: 'play', phase: 'commit', round: 1, typos: 'strict', position },
    events: [],
    pending: null,
    draft: { choices: decision.choices, value, set: setValue },
  };
  return (
    <>
      <DecisionForm
        decision={decision}
        value={value}
        onChange={setValue}
        onDecide={(choice) => {
          g.sent.push(choice);
          return null;
        }}
      />
      <Diplomacy view={view} />
    </>
  );
}

render(<Page />, document.getElementById('root')!);
