// The inspector's stylesheet (inlined in the app: the page loads nothing else).
export const STYLES = `
:root { color-scheme: light; --line: #e5e7eb; --muted: #6b7280; --brand: #4f46e5; --bad: #b91c1c; --good: #047857; }
* { box-sizing: border-box; }
body { margin: 0; font: 13px/1.4 system-ui, sans-serif; color: #111827; background: #f9fafb; }
.inspector { display: grid; grid-template-columns: 220px minmax(0, 1fr) minmax(0, 1fr) 360px; grid-template-rows: auto minmax(0, 1fr) 240px;
  grid-template-areas: "head head head head" "side main main obs" "acts acts events events"; height: 100vh; gap: 1px; background: var(--line); }
.inspector > * { background: #fff; overflow: auto; padding: .5rem .75rem; }
header { grid-area: head; display: flex; gap: .5rem; align-items: center; }
header h1 { font-size: 15px; margin: 0 1rem 0 0; color: var(--brand); }
aside { grid-area: side; } main { grid-area: main; background: #374151; } .observation { grid-area: obs; }
.acts { grid-area: acts; } .events { grid-area: events; }
h2 { font-size: 12px; text-transform: uppercase; letter-spacing: .04em; color: var(--muted); margin: .5rem 0 .25rem; }
.list { display: flex; flex-direction: column; gap: 2px; }
.item { text-align: left; border: 1px solid var(--line); background: #fff; border-radius: 4px; padding: .25rem .4rem; cursor: pointer; overflow: hidden; }
.item small { display: block; color: var(--muted); white-space: nowrap; text-overflow: ellipsis; overflow: hidden; }
.item.selected { border-color: var(--brand); background: #eef2ff; }
.view { display: flex; justify-content: center; }
.stage { position: relative; line-height: 0; }
#boxes { position: absolute; inset: 0; }
.box { position: absolute; outline: 1px solid rgb(79 70 229 / .45); }
.box.lit { outline: 2px solid #f59e0b; background: rgb(245 158 11 / .25); }
.elements li.lit { background: #fef3c7; }
#live { max-width: 100%; max-height: calc(100vh - 300px); cursor: crosshair; background: #fff; box-shadow: 0 0 0 1px #000; }
#modal:empty { display: none; }
.pending { margin-top: .5rem; padding: .5rem; background: #fef3c7; border-radius: 4px; display: flex; gap: .5rem; align-items: center; }
.tree { white-space: pre-wrap; font: 12px/1.35 ui-monospace, monospace; margin: 0 0 .5rem; }
.elements { list-style: none; padding: 0; margin: 0; }
.elements li { padding: 1px 4px; cursor: pointer; border-radius: 3px; } .elements li:hover { background: #eef2ff; }
.elements .offscreen { color: var(--muted); }
.act { margin-bottom: 2px; } .act code { word-break: break-all; } .act.ok b { color: var(--good); } .act.failed b, .error { color: var(--bad); }
table { border-collapse: collapse; width: 100%; } td, th { text-align: left; padding: 1px 6px; border-bottom: 1px solid var(--line); vertical-align: top; }
td code { font-size: 11px; word-break: break-all; } .muted { color: var(--muted); }
button { font: inherit; padding: .2rem .6rem; border: 1px solid #d1d5db; border-radius: 4px; background: #fff; cursor: pointer; }
form { display: flex; gap: .25rem; } input, select { font: inherit; padding: .15rem .3rem; }
`;
