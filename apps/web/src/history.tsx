/**
 * A game's history under its board (docs/spec/web.md §4, "The table"): the latest few steps in sentences, and the
 * whole history in a collapsed list below them, so that a long game never pushes the table down the page.
 */
import type { ComponentChildren } from 'preact';

/** How many of the latest steps show without opening the whole history. */
export const LATEST = 3;

export function History({ items, label, title }: { items: readonly ComponentChildren[]; label: string; title: string }) {
  if (items.length === 0) return null;
  const latest = items.slice(-LATEST);
  return (
    <div class="history">
      <ol class="rolls latest" aria-label="Just now" start={items.length - latest.length + 1}>
        {latest.map((item, i) => (
          <li key={i}>{item}</li>
        ))}
      </ol>
      {
        <details>
          <summary>
            {title} ({items.length} steps)
          </summary>
          <ol class="rolls" aria-label={label}>
            {items.map((item, i) => (
              <li key={i}>{item}</li>
            ))}
          </ol>
        </details>
      }
    </div>
  );
}
