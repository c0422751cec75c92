// The live inspector (served at /inspector): a person watching an agent sees its sessions and
// tabs, the tab live, the session's events, the current observation, and can observe, act, and
// answer dialogs and file choosers by hand. Its act and event logs are written in the same rows
// as a trace's steps (rows.ts).
import type {
  ActResult,
  Client,
  EventData,
  Observation,
  Screencast,
  Session,
  SessionEvent,
  SessionSummary,
  TabSummary,
} from '../client/exports.ts';
import { frameNoteElement, h, rowElement } from './dom.ts';
import { frameNotes } from '../wire/frame-notes.ts';
import { actFieldsWords, actRow, type CallError, callRow, eventRow } from './rows.ts';

/** Events shown in the log (the oldest go first). */
const MAX_EVENTS = 200;
const MAX_ACTS = 50;

export class LiveInspector {
  readonly #client: Client;
  readonly #ui: ReturnType<typeof layout>;
  #session: Session | undefined;
  #sessionId: string | undefined;
  #targetId: string | undefined;
  #screencast: Screencast | undefined;
  #events: AsyncIterator<SessionEvent> | undefined;
  #observation: Observation | undefined;
  /** The request ids of the acts run from this page: their `act` events are already in the log. */
  readonly #ownActs = new Set<string>();
  #scale = 1;

  /** `controls`: what the header offers besides the live view's own buttons (Open trace…). */
  constructor(client: Client, controls: HTMLElement) {
    this.#client = client;
    this.#ui = layout(controls, {
      refresh: () => void this.refreshSessions(),
      observe: () => void this.observe(),
      act: (form) => void this.actFromForm(form),
      clickAt: (event) => void this.clickAt(event),
    });
  }

  get root(): HTMLElement {
    return this.#ui.root;
  }

  async refreshSessions(): Promise<void> {
    const { sessions } = await this.#client.listSessions();
    this.#ui.sessions.replaceChildren(
      ...sessions.map((s: SessionSummary) =>
        h(
          'button',
          {
            class: s.session_id === this.#sessionId ? 'item selected' : 'item',
            'data-session': s.session_id,
            click: () => void this.selectSession(s.session_id),
          },
          `${s.name} `,
          h('small', {}, s.session_id),
        )
      ),
    );
    if (this.#sessionId === undefined && sessions[0]) await this.selectSession(sessions[0].session_id);
  }

  async selectSession(sessionId: string): Promise<void> {
    if (this.#sessionId === sessionId) return;
    await this.#screencast?.stop().catch(() => {});
    this.#screencast = undefined;
    void this.#events?.return?.();
    this.#sessionId = sessionId;
    this.#session = this.#client.session(sessionId);
    this.#targetId = undefined;
    this.#ui.events.replaceChildren();
    void this.#followEvents(this.#session);
    await this.refreshSessions();
    await this.refreshTabs();
  }

  async refreshTabs(): Promise<void> {
    const session = this.#session;
    if (!session) return;
    const { tabs } = await session.tabs.list();
    const shown = this.#targetId ?? tabs.find((t: TabSummary) => t.selected)?.target_id ?? tabs[0]?.target_id;
    this.#ui.tabs.replaceChildren(
      ...tabs.map((t: TabSummary) =>
        h(
          'button',
          {
            class: t.target_id === shown ? 'item selected' : 'item',
            'data-target': t.target_id,
            click: () => void this.watch(t.target_id),
          },
          t.title || t.url,
          h('small', {}, t.url),
        )
      ),
    );
    if (shown !== undefined && shown !== this.#targetId) await this.watch(shown);
  }

  async watch(targetId: string): Promise<void> {
    const session = this.#session;
    if (!session) return;
    await this.#screencast?.stop().catch(() => {});
    this.#targetId = targetId;
    for (const button of this.#ui.tabs.querySelectorAll<HTMLElement>('[data-target]')) {
      button.classList.toggle('selected', button.dataset['target'] === targetId);
    }
    this.#screencast = await session.screencast({
      target_id: targetId,
      onFrame: (frame) => {
        if (frame.scale !== this.#scale) {
          this.#scale = frame.scale;
          this.#drawBoxes();
        }
        this.#ui.live.src = `data:${frame.mime};base64,${frame.data}`;
        this.#ui.live.dataset['frames'] = String(Number(this.#ui.live.dataset['frames'] ?? '0') + 1);
      },
    });
    await this.observe();
  }

  async observe(): Promise<void> {
    const session = this.#session;
    if (!session || this.#targetId === undefined) return;
    try {
      this.#show(await session.observe({ target_id: this.#targetId, include_boxes: true }));
    } catch (error) {
      this.#ui.tree.replaceChildren(h('p', { class: 'error' }, String((error as Error).message ?? error)));
    }
  }

  async clickAt(event: MouseEvent): Promise<void> {
    const image = this.#ui.live;
    if (!image.naturalWidth) return;
    const rect = image.getBoundingClientRect();
    // The image is drawn to fit its box: its px → frame px → CSS px of the page.
    const x = ((event.clientX - rect.left) * (image.naturalWidth / rect.width)) / this.#scale;
    const y = ((event.clientY - rect.top) * (image.naturalHeight / rect.height)) / this.#scale;
    await this.#act({ action: 'click', x: Math.round(x * 10) / 10, y: Math.round(y * 10) / 10 });
  }

  async actFromForm(form: HTMLFormElement): Promise<void> {
    const data = new FormData(form);
    const action = String(data.get('action'));
    const ref = String(data.get('ref') ?? '').trim();
    const text = String(data.get('text') ?? '');
    const step: Record<string, unknown> = { action };
    if (ref) step['ref'] = ref;
    if (action === 'type' || action === 'fill') step['text'] = text;
    if (action === 'press') step['key'] = text || 'Enter';
    if (action === 'check') step['checked'] = text !== 'false';
    if (action === 'navigate') step['url'] = text;
    await this.#act(step);
  }

  async #act(step: Record<string, unknown>): Promise<void> {
    const session = this.#session;
    if (!session || this.#targetId === undefined) return;
    let result: ActResult;
    try {
      // A person acts on what the live view shows now, not on an older observation (the agent
      // may have observed since, which would make ours stale): observe right before.
      await this.observe();
      const requestId = `inspector-${crypto.randomUUID()}`;
      this.#ownActs.add(requestId);
      result = await session.act(step as never, {
        target_id: this.#targetId,
        request_id: requestId,
        ...(this.#observation ? { state: this.#observation } : {}),
      });
    } catch (error) {
      // The SDK's errors carry the wire's error word (PagewireError); anything else its message.
      const failure = error as { message?: string; code?: number; error_type?: string };
      this.#logAct(step, undefined, {
        code: failure.code ?? 0,
        message: String(failure.message ?? error),
        data: failure.error_type ? { error_type: failure.error_type } : undefined,
      });
      return;
    }
    this.#logAct(step, result);
    if (result.fresh_state) this.#show(result.fresh_state);
    else await this.observe();
  }

  /** An act run from this page: its row, and under it the fields a person checks next. */
  #logAct(step: Record<string, unknown>, result: ActResult | undefined, failure?: CallError): void {
    const row = callRow('act', step, result, failure);
    this.#prependAct(
      rowElement(
        'li',
        row,
        { class: 'act', 'data-status': result?.status ?? 'error' },
        result ? h('small', {}, actFieldsWords(result)) : undefined,
      ),
    );
  }

  #logAgentAct(act: EventData['act']): void {
    this.#prependAct(
      rowElement(
        'li',
        actRow(act.actions, act),
        { class: 'act', 'data-status': act.status, 'data-source': 'session' },
        h('small', {}, actFieldsWords(act)),
      ),
    );
    // Not observed again here: an observation is the tab's new current state (§6), which would
    // make the agent's own state stale. The person presses Observe to see the page as it is.
    if (act.fresh_state_id && act.fresh_state_id !== this.#observation?.state_id) this.#ui.state.dataset['behind'] = act.fresh_state_id;
  }

  #prependAct(row: HTMLElement): void {
    this.#ui.acts.prepend(row);
    while (this.#ui.acts.children.length > MAX_ACTS) this.#ui.acts.lastElementChild?.remove();
  }

  #show(observation: Observation): void {
    this.#observation = observation;
    this.#ui.state.textContent = `${observation.state_id} · ${observation.url}`;
    this.#ui.tree.replaceChildren(
      ...frameNotes(observation.frames).map(frameNoteElement),
      h('pre', { class: 'tree' }, observation.tree),
      h(
        'ul',
        { class: 'elements' },
        ...observation.elements.map((e) =>
          h(
            'li',
            {
              'data-ref': e.ref,
              class: e.in_viewport ? '' : 'offscreen',
              click: () => this.#pickRef(e.ref),
              mouseenter: () => this.#light(e.ref, true),
              mouseleave: () => this.#light(e.ref, false),
            },
            h('b', {}, e.ref),
            ` ${e.role} “${e.name}”`,
          )
        ),
      ),
    );
    this.#drawBoxes();
    this.#showModal(observation);
  }

  /** The observation's boxes over the live view, in % of the page's viewport (they scale with the image). */
  #drawBoxes(): void {
    const boxes = this.#observation?.boxes ?? {};
    const image = this.#ui.live;
    // CSS px of the page's viewport = image px / scale.
    const width = image.naturalWidth / this.#scale;
    const height = image.naturalHeight / this.#scale;
    if (!width || !height) return;
    this.#ui.boxes.replaceChildren(
      ...Object.entries(boxes).map(([ref, [x, y, w, hgt]]) =>
        h('div', {
          class: 'box',
          'data-ref': ref,
          title: ref,
          style: `left:${(x / width) * 100}%;top:${(y / height) * 100}%;width:${(w / width) * 100}%;height:${(hgt / height) * 100}%`,
          mouseenter: () => this.#light(ref, true),
          mouseleave: () => this.#light(ref, false),
        })
      ),
    );
  }

  /** A ref's box and its line in the list light up together. */
  #light(ref: string, on: boolean): void {
    for (const element of document.querySelectorAll<HTMLElement>(`[data-ref="${CSS.escape(ref)}"]`)) element.classList.toggle('lit', on);
  }

  #pickRef(ref: string): void {
    const input = this.#ui.form.querySelector<HTMLInputElement>('input[name=ref]');
    if (input) input.value = ref;
  }

  #showModal(observation: Observation | undefined, chooser?: { mode: string; ref?: string }): void {
    const parts: HTMLElement[] = [];
    const dialog = observation?.dialog;
    if (dialog) {
      parts.push(
        h(
          'div',
          { class: 'pending', 'data-pending': 'dialog' },
          `${dialog.type}: “${dialog.message}” `,
          h('button', { click: () => void this.#handleDialog(true) }, 'Accept'),
          h('button', { click: () => void this.#handleDialog(false) }, 'Dismiss'),
        ),
      );
    }
    if (chooser) {
      parts.push(
        h(
          'div',
          { class: 'pending', 'data-pending': 'file_chooser' },
          `file chooser (${chooser.mode}${chooser.ref ? `, ${chooser.ref}` : ''}) `,
          h('input', { name: 'paths', placeholder: 'paths, comma-separated (on the server)' }),
          h('button', { click: (event) => void this.#resolveChooser(event) }, 'Choose'),
          h('button', { click: () => void this.#resolveChooser() }, 'Cancel'),
        ),
      );
    }
    if (parts.length > 0 || !chooser) this.#ui.modal.replaceChildren(...parts);
  }

  async #handleDialog(accept: boolean): Promise<void> {
    await this.#session?.handleDialog({ accept, ...(this.#targetId ? { target_id: this.#targetId } : {}) });
    this.#ui.modal.replaceChildren();
    await this.observe();
  }

  async #resolveChooser(event?: Event): Promise<void> {
    const input = (event?.target as HTMLElement | undefined)?.parentElement?.querySelector<HTMLInputElement>('input[name=paths]');
    const paths = input?.value ? input.value.split(',').map((p) => p.trim()).filter(Boolean) : [];
    await this.#session?.resolveFileChooser({ paths, ...(this.#targetId ? { target_id: this.#targetId } : {}) });
    this.#ui.modal.replaceChildren();
  }

  async #followEvents(session: Session): Promise<void> {
    const stream = session.events({ afterSeq: 0 });
    this.#events = stream;
    for await (const event of stream) {
      if (this.#session !== session) break;
      this.#logEvent(event);
      // Acts of the agent (or any other client): what it did and how each one ended.
      if (event.kind === 'act' && !(event.data.request_id && this.#ownActs.delete(event.data.request_id))) this.#logAgentAct(event.data);
      if (event.kind === 'dialog' && !event.data.handled) void this.observe();
      if (event.kind === 'file_chooser') this.#showModal(this.#observation, event.data);
      if (event.kind === 'popup' || event.kind === 'tab_closed') void this.refreshTabs();
    }
  }

  #logEvent(event: SessionEvent): void {
    const row = rowElement('li', eventRow(event.kind, event.data), { 'data-kind': event.kind, 'data-seq': String(event.seq) });
    row.prepend(h('span', { class: 'seq muted' }, `${event.seq} `));
    this.#ui.events.prepend(row);
    while (this.#ui.events.children.length > MAX_EVENTS) this.#ui.events.lastElementChild?.remove();
  }
}

function layout(
  controls: HTMLElement,
  handlers: { refresh(): void; observe(): void; act(form: HTMLFormElement): void; clickAt(event: MouseEvent): void },
) {
  const sessions = h('div', { class: 'list', id: 'sessions' });
  const tabs = h('div', { class: 'list', id: 'tabs' });
  const live = h('img', { id: 'live', alt: 'live view of the tab (click to act there)' }) as HTMLImageElement;
  const boxes = h('div', { id: 'boxes' });
  // A click on the picture or on a box over it: the box is only drawn there.
  const stage = h('div', { class: 'stage', click: (e) => handlers.clickAt(e as MouseEvent) }, live, boxes);
  const state = h('div', { id: 'state', class: 'muted' }, 'not observed yet');
  const tree = h('div', { id: 'tree' });
  const modal = h('div', { id: 'modal' });
  const acts = h('ol', { id: 'acts', reversed: '' });
  const events = h('ul', { id: 'events', class: 'rows' });
  const action = h(
    'select',
    { name: 'action' },
    ...['click', 'fill', 'type', 'press', 'hover', 'check', 'navigate', 'reload', 'back'].map((a) => h('option', { value: a }, a)),
  );
  const form = h(
    'form',
    {
      id: 'act-form',
      submit: (event) => {
        event.preventDefault();
        handlers.act(event.target as HTMLFormElement);
      },
    },
    action,
    h('input', { name: 'ref', placeholder: 'ref (e.g. @3)', size: '8' }),
    h('input', { name: 'text', placeholder: 'text / key / url' }),
    h('button', { type: 'submit' }, 'Act'),
  ) as HTMLFormElement;
  const root = h(
    'div',
    { class: 'inspector' },
    h(
      'header',
      {},
      h('h1', {}, 'pagewire inspector'),
      h('button', { id: 'refresh', click: () => handlers.refresh() }, 'Refresh'),
      h('button', { id: 'observe', click: () => handlers.observe() }, 'Observe'),
      form,
      controls,
    ),
    h('aside', {}, h('h2', {}, 'Sessions'), sessions, h('h2', {}, 'Tabs'), tabs),
    h('main', {}, h('div', { class: 'view' }, stage), modal),
    h('section', { class: 'observation' }, h('h2', {}, 'Observation'), state, tree),
    h('section', { class: 'acts' }, h('h2', {}, 'Acts'), acts),
    h('section', { class: 'events' }, h('h2', {}, 'Events'), events),
  );
  return { root, sessions, tabs, live, boxes, state, tree, modal, acts, events, form };
}
