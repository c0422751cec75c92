// The inspector's stylesheet (inlined in the app: the page loads nothing else).
export const STYLES = `
:root { color-scheme: light; --line: #e5e7eb; --muted: #6b7280; --brand: #4f46e5; --bad: #b91c1c; --good: #047857; --warn: #b45309; }
* { box-sizing: border-box; }
body { margin: 0; font: 13px/1.4 system-ui, sans-serif; color: #111827; background: #f9fafb; }
.inspector { display: grid; grid-template-columns: 220px minmax(0, 1fr) minmax(0, 1fr) 360px; grid-template-rows: auto minmax(0, 1fr) 240px;
  grid-template-areas: "head head head head" "side main main obs" "acts acts events events"; height: 100vh; gap: 1px; background: var(--line); }
.inspector > * { background: #fff; overflow: auto; padding: .5rem .75rem; }
.inspector > header { grid-area: head; display: flex; gap: .5rem; align-items: center; }
.inspector > header h1, .trace-view > header h1 { font-size: 15px; margin: 0 1rem 0 0; color: var(--brand); }
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
.frame-note { margin: 0 0 .5rem; padding: .35rem .5rem; background: #fef3c7; border-radius: 4px; }
.elements { list-style: none; padding: 0; margin: 0; }
.elements li { padding: 1px 4px; cursor: pointer; border-radius: 3px; } .elements li:hover { background: #eef2ff; }
.elements .offscreen { color: var(--muted); }
.error { color: var(--bad); } .muted { color: var(--muted); } [hidden] { display: none !important; }
.row { font: 12px/1.4 ui-monospace, monospace; word-break: break-word; }
.row.ok > .words { color: var(--good); } .row.refused > .words { color: var(--warn); } .row.failed > .words { color: var(--bad); }
.row small { display: block; color: var(--muted); font-family: system-ui, sans-serif; }
#acts { margin: 0; padding-left: 2rem; } .act { margin-bottom: 3px; }
.rows { list-style: none; margin: 0; padding: 0; } .rows li { padding: 1px 0; border-bottom: 1px solid var(--line); }
table { border-collapse: collapse; width: 100%; } td, th { text-align: left; padding: 1px 6px; border-bottom: 1px solid var(--line); vertical-align: top; }
th { color: var(--muted); font-weight: 500; white-space: nowrap; width: 1%; } td { word-break: break-word; }
button, .button { font: inherit; padding: .2rem .6rem; border: 1px solid #d1d5db; border-radius: 4px; background: #fff; cursor: pointer; }
form { display: flex; gap: .25rem; } input, select { font: inherit; padding: .15rem .3rem; }
#status { margin: 1rem; }
.trace-view { display: grid; grid-template-rows: auto minmax(0, 1fr); height: 100vh; }
.trace-view > header { display: flex; flex-wrap: wrap; gap: .5rem 1rem; align-items: center; padding: .5rem .75rem; background: #fff; border-bottom: 1px solid var(--line); }
.trace-view .controls { display: flex; gap: .5rem; margin-left: auto; }
#trace-name { font-weight: 600; }
#trace-body { display: grid; grid-template-columns: 380px minmax(0, 1fr); min-height: 0; gap: 1px; background: var(--line); }
#trace-body > * { background: #fff; overflow: auto; margin: 0; }
.trace-error { grid-column: 1 / -1; margin: 0; padding: 2rem; font-size: 15px; color: var(--bad); }
#timeline { list-style: none; padding: 0; }
#timeline .step { display: grid; grid-template-columns: 96px minmax(0, 1fr); grid-template-rows: auto 1fr; column-gap: .5rem;
  padding: .35rem .5rem; border-bottom: 1px solid var(--line); cursor: pointer; border-left: 3px solid transparent; }
#timeline .step:hover { background: #f3f4f6; } #timeline .step.selected { background: #eef2ff; border-left-color: var(--brand); }
#timeline .step.refused { border-left-color: var(--warn); } #timeline .step.failed { border-left-color: var(--bad); }
#timeline .thumb { grid-row: 1 / 3; width: 96px; height: 60px; object-fit: cover; object-position: top; background: #e5e7eb; border: 1px solid var(--line); }
#timeline .at { font: 11px system-ui, sans-serif; }
#step { padding: .5rem 1rem 2rem; } #step h2 { text-transform: none; letter-spacing: 0; font-size: 14px; margin: .25rem 0; }
#step h3 { font-size: 12px; text-transform: uppercase; letter-spacing: .04em; color: var(--muted); margin: 1rem 0 .25rem; }
.pair { display: grid; grid-template-columns: minmax(0, 1fr) minmax(0, 1fr); gap: 1.25rem; }
.frames { display: grid; grid-template-columns: 1fr 1fr; gap: .75rem; } .frame-figure { margin: 0; }
.frame-figure .stage { border: 1px solid #9ca3af; } .frame { display: block; width: 100%; }
.target { position: absolute; outline: 2px solid #f59e0b; background: rgb(245 158 11 / .15); pointer-events: none; }
.tree, .diff { max-height: 28rem; overflow: auto; background: #f9fafb; padding: .4rem .5rem; border: 1px solid var(--line); }
.line.acted { background: #fde68a; font-weight: 600; } .diff .added { background: #dcfce7; } .diff .removed { background: #fee2e2; }
.diff .skipped { color: var(--muted); font-style: italic; } .diff { white-space: pre-wrap; font: 12px/1.35 ui-monospace, monospace; margin: 0; }
`;
