// The bench's verdicts (bench/peers/report.ts) from a made-up run: a goal whose limit lies below
// Chromium's own floor, measured in the same run, is said to be so, and only then.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { type BenchReport, verdicts } from '../../bench/peers/report.ts';

const s = suite('bench report');

/** One page where each contender's navigate took `ms` (its median). */
function run(navigate: Record<string, number>): BenchReport {
  const contenders = Object.fromEntries(
    Object.entries(navigate).map(([id, ms]) => [
      id,
      {
        series: {
          navigate: {
            status: 'ok',
            samples: [],
            errors: 0,
            observation: id === 'pagewire' || id === 'playwright-mcp',
            stats: { median_ms: ms, p90_ms: ms },
          },
        },
      },
    ]),
  );
  return { pages: [{ id: 'python-stdtypes', contenders }], contenders: [] } as unknown as BenchReport;
}

const againstPlaywright = (report: BenchReport) =>
  verdicts(report).find((v) => v.target === 'navigate with fresh observation ≤ 0.8× Playwright MCP navigate')!;

s("navigate against Playwright MCP: below the floor when Chromium's faster accessibility read takes longer than the limit", () => {
  const below = againstPlaywright(
    run({ pagewire: 3_972, 'playwright-mcp': 2_973, 'cdp-load-floor': 7_896, 'cdp-read-floor': 2_978 }),
  );
  assert.is(below.met, false);
  assert.is(below.belowFloor, "Chromium's fastest accessibility read of the page");
  assert.match(below.where, 'raw CDP load floor 7896 ms, raw CDP read floor 2978 ms');
  // One floor under the limit is enough for the goal to stand as missed.
  const reachable = againstPlaywright(
    run({ pagewire: 3_972, 'playwright-mcp': 2_973, 'cdp-load-floor': 2_000, 'cdp-read-floor': 2_978 }),
  );
  assert.is(reachable.met, false);
  assert.is(reachable.belowFloor, undefined);
  // Without a floor measured, nothing is claimed.
  assert.is(againstPlaywright(run({ pagewire: 3_972, 'playwright-mcp': 2_973 })).belowFloor, undefined);
  assert.is(againstPlaywright(run({ pagewire: 2_000, 'playwright-mcp': 2_973, 'cdp-read-floor': 1_000 })).met, true);
});

s.run();
