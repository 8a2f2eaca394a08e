/**
 * A game's history under its board (docs/spec/web.md §4, "The table"): the latest few steps in sentences, and the
 * whole history in a collapsed list below them, so that a long game never pushes the table down the page. The
 * whole list is drawn only while it is open: a game at round 100 redraws three steps per move, not hundreds.
 */
import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';

/** How many of the latest steps show without opening the whole history. */
export const LATEST = 3;

export function History({ count, item, label, title }: { count: number; item: (i: number) => ComponentChildren; label: string; title: string }) {
  const [open, setOpen] = useState(false);
  if (count === 0) return null;
  const from = Math.max(0, count - LATEST);
  const range = (a: number, b: number): number[] => Array.from({ length: b - a }, (_, k) => a + k);
  return (
    <div class="history">
      <ol class="rolls latest" aria-label="Just now" start={from + 1}>
        {range(from, count).map((i) => (
          <li key={i}>{item(i)}</li>
        ))}
      </ol>
      <details onToggle={(e) => setOpen((e.currentTarget as HTMLDetailsElement).open)}>
        <summary>
          {title} ({count} steps)
        </summary>
        {open ? (
          <ol class="rolls" aria-label={label}>
            {range(0, count).map((i) => (
              <li key={i}>{item(i)}</li>
            ))}
          </ol>
        ) : null}
      </details>
    </div>
  );
}
