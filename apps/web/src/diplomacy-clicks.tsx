/**
 * Diplomacy's orders by clicks on the board (docs/spec/web.md §4, "Diplomacy"; docs/spec/diplomacy.md §10.3.3): the
 * click machine of @fairtable/diplomacy/order-clicks.js driven by the map's clicks, its line in words, its short
 * lists to choose from as buttons, and the orders written so far, each to clear. The orders live in the decision's
 * answer, the one the form below the bar edits and sends: the board and the form show the same orders.
 */
import type { Choices } from '@fairtable/core/protocols/machine.js';
import type { JsonValue } from '@fairtable/core/jcs.js';
import {
  clickChoose,
  clickProvince,
  clickStart,
  convoyFollowUps,
  orderWords,
  placeOrder,
  type ClickMenu,
  type ClickStep,
} from '@fairtable/diplomacy/order-clicks.js';
import { useMemo, useState } from 'preact/hooks';

export interface Draft {
  readonly choices: Choices;
  readonly value: JsonValue;
  readonly set: (value: JsonValue) => void;
}

/** The decision's orders as a click menu: each one-of field of strings; null when the decision has none. */
export function clickMenu(choices: Choices | undefined): ClickMenu | null {
  if (choices?.type !== 'record') return null;
  const menu: Record<string, string[]> = {};
  for (const [k, f] of Object.entries(choices.fields)) if (f.type === 'one-of' && f.values.every((v) => typeof v === 'string')) menu[k] = f.values as string[];
  return Object.keys(menu).length === 0 ? null : menu;
}

const recordOf = (v: JsonValue): Record<string, JsonValue> => (v !== null && typeof v === 'object' && !Array.isArray(v) ? v : {});

/** The orders of the answer that differ from their field's first (a unit's hold, a waived build), field by field. */
export function writtenOrders(menu: ClickMenu, value: JsonValue): { field: string; order: string }[] {
  const answer = recordOf(value);
  const out: { field: string; order: string }[] = [];
  for (const [field, values] of Object.entries(menu)) {
    const v = answer[field];
    if (typeof v === 'string' && values.includes(v) && v !== values[0]) out.push({ field, order: v });
  }
  return out;
}

/** The orders being written and the clicks towards the next, for the map to draw. */
export interface ClickState {
  readonly step: ClickStep;
  /** The order last entered, in words, or null. */
  readonly entered: string | null;
}

/** The click machine's state over `menu`, and what a click on a province does to the draft. */
export function useOrderClicks(menu: ClickMenu | null, draft: Draft | null) {
  // The state of the menu it was reached on: a new menu (the next phase) starts afresh.
  const [held, setHeld] = useState<{ menu: ClickMenu; state: ClickState } | null>(null);
  const current = menu === null ? null : held !== null && held.menu === menu ? held.state : { step: clickStart(menu), entered: null };
  const setState = (state: ClickState | null): void => setHeld(menu === null || state === null ? null : { menu, state });
  const settle = (step: ClickStep): void => {
    if (menu === null || draft === null) return;
    if (step.order === null) return setState({ step, entered: null });
    draft.set(placeOrder(menu, recordOf(draft.value), step.order));
    setState({ step: { ...clickStart(menu), refused: step.refused }, entered: step.order });
  };
  return {
    state: current,
    click: (province: string): void => {
      if (menu !== null && current !== null) settle(clickProvince(menu, current.step.clicks, province));
    },
    choose: (order: string): void => {
      if (menu !== null && current !== null) settle(clickChoose(menu, current.step.clicks, order));
    },
    cancel: (): void => setState(menu === null ? null : { step: clickStart(menu), entered: null }),
  };
}

/** The line under the map while orders are written: what was entered, what to click next, choices, the orders. */
export function ClickOrders(props: { menu: ClickMenu; draft: Draft; state: ClickState; onChoose: (order: string) => void; onCancel: () => void }) {
  const { menu, draft, state } = props;
  const { step, entered } = state;
  const written = useMemo(() => writtenOrders(menu, draft.value), [menu, draft.value]);
  const followUps = entered === null ? [] : convoyFollowUps(menu, recordOf(draft.value), entered);
  const addAll = (orders: readonly string[]): void => {
    let answer: Record<string, JsonValue> = recordOf(draft.value);
    for (const o of orders) answer = placeOrder(menu, answer, o);
    draft.set(answer);
  };
  const clear = (field: string): void => draft.set({ ...recordOf(draft.value), [field]: menu[field]![0]! });
  return (
    <section class="click-orders" aria-label="Orders by clicks on the map">
      <p aria-live="polite" data-testid="click-prompt">
        {step.refused === null ? '' : `${step.refused} `}
        {entered === null ? '' : `Entered: ${orderWords(entered)}. `}
        {step.prompt}
      </p>
      {followUps.length === 0 ? null : (
        <p>
          <button type="button" onClick={() => addAll(followUps)} data-testid="convoy-follow-ups">
            Order the convoy too: {followUps.map(orderWords).join('; ')}
          </button>
        </p>
      )}
      {step.choices.length === 0 && step.clicks.length === 0 ? null : (
        <div class="click-choices" role="group" aria-label="Choose the order">
          {step.choices.map((o) => (
            <button key={o} type="button" data-order={o} onClick={() => props.onChoose(o)}>
              {orderWords(o)}
            </button>
          ))}
          {step.clicks.length === 0 ? null : (
            <button type="button" class="quiet" onClick={props.onCancel}>
              Cancel
            </button>
          )}
        </div>
      )}
      <p class="note">
        {written.length === 0
          ? 'No orders written yet besides the first of each menu (a hold, a waived build).'
          : 'Your orders so far, sent with the form above (the rest as the form shows):'}
      </p>
      {written.length === 0 ? null : (
        <ul class="written-orders" data-testid="written-orders">
          {written.map(({ field, order }) => (
            <li key={field} data-order={order}>
              {orderWords(order)}{' '}
              <button type="button" class="quiet" aria-label={`Clear: ${orderWords(order)}`} onClick={() => clear(field)}>
                ×
              </button>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
