// Reading fixtures/pages/todomvc.html's observations: its toggles have no name of their own.
import type { Observation } from './wire.ts';

/**
 * TodoMVC's checkboxes have no name (an item's label is its sibling, and "Mark all as complete"
 * is display:none): an item's toggle is the checkbox line right above its title.
 */
export function todoToggle(o: Observation, title: string): string {
  const lines = o.tree.split('\n');
  const at = lines.findIndex((line) => line.trim() === JSON.stringify(title));
  const toggle = /^ *checkbox(?: \[checked\])? (@\d+)$/.exec(lines[at - 1] ?? '')?.[1];
  if (!toggle) throw new Error(`no toggle for ${title} in\n${o.tree}`);
  return toggle;
}

/** The footer's count: "<strong>2</strong> items left" reads as one text line. */
export function itemsLeft(o: Observation | undefined): string | undefined {
  const match = /\n *"(\d+ items? left)"\n/.exec(o?.tree ?? '');
  return match ? match[1] : undefined;
}
