// A line diff of two texts (two observations' trees): the lines both keep, and those one side
// lacks, in order. The common head and tail are matched first; the middle by longest common
// subsequence, unless it is too large to compare line by line in the page, when it is shown as
// removed then added (still true, only less precise).

export type DiffLine = { op: 'same' | 'removed' | 'added'; line: string };

/** Cells of the middle's table past which it is not compared line by line (memory, not time). */
const MAX_TABLE_CELLS = 4_000_000;

export function lineDiff(before: string, after: string): DiffLine[] {
  const a = before.split('\n');
  const b = after.split('\n');
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  const middleA = a.slice(head, a.length - tail);
  const middleB = b.slice(head, b.length - tail);
  return [
    ...a.slice(0, head).map((line) => ({ op: 'same' as const, line })),
    ...middle(middleA, middleB),
    ...a.slice(a.length - tail).map((line) => ({ op: 'same' as const, line })),
  ];
}

function middle(a: string[], b: string[]): DiffLine[] {
  if ((a.length + 1) * (b.length + 1) > MAX_TABLE_CELLS) {
    return [...a.map((line) => ({ op: 'removed' as const, line })), ...b.map((line) => ({ op: 'added' as const, line }))];
  }
  // lengths[i * width + j]: the longest common subsequence of a[i..] and b[j..].
  const width = b.length + 1;
  const lengths = new Uint32Array((a.length + 1) * width);
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      lengths[i * width + j] = a[i] === b[j]
        ? lengths[(i + 1) * width + j + 1]! + 1
        : Math.max(lengths[(i + 1) * width + j]!, lengths[i * width + j + 1]!);
    }
  }
  const out: DiffLine[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    if (a[i] === b[j]) {
      out.push({ op: 'same', line: a[i]! });
      i++;
      j++;
    } else if (lengths[(i + 1) * width + j]! >= lengths[i * width + j + 1]!) out.push({ op: 'removed', line: a[i++]! });
    else out.push({ op: 'added', line: b[j++]! });
  }
  while (i < a.length) out.push({ op: 'removed', line: a[i++]! });
  while (j < b.length) out.push({ op: 'added', line: b[j++]! });
  return out;
}

/**
 * The changed lines with a little of what surrounds them; the unchanged runs between are counted,
 * not shown (`{skipped: N}`).
 */
export function diffHunks(lines: DiffLine[], context = 2): Array<DiffLine | { skipped: number }> {
  const keep = lines.map(() => false);
  lines.forEach((line, index) => {
    if (line.op === 'same') return;
    for (let k = Math.max(0, index - context); k <= Math.min(lines.length - 1, index + context); k++) keep[k] = true;
  });
  const out: Array<DiffLine | { skipped: number }> = [];
  let skipped = 0;
  lines.forEach((line, index) => {
    if (keep[index]) {
      if (skipped) out.push({ skipped });
      skipped = 0;
      out.push(line);
    } else skipped++;
  });
  if (skipped) out.push({ skipped });
  return out;
}
