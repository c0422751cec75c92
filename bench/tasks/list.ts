// The tasks of the agent-loop benchmark (bench/tasks.ts): what a scripted agent is asked to do on a
// page, as a person would say it, in steps that name their targets by role and accessible name.
// An agent finds each target in what its server last returned (or asks for a snapshot when that
// has none); how it spends calls on a step is its server's business (bench/tasks/agents.ts).

export interface Target {
  readonly role: string;
  readonly name: string;
}

export type Step =
  | { readonly do: 'open'; readonly path: string }
  | { readonly do: 'fill'; readonly target: Target; readonly text: string }
  /** Type into a field and press Enter (a TodoMVC's new item, a search box). */
  | { readonly do: 'submit'; readonly target: Target; readonly text: string }
  | { readonly do: 'click'; readonly target: Target }
  /** Wait for text the page shows later (a report, search results). */
  | { readonly do: 'wait'; readonly text: string };

export interface Task {
  readonly id: string;
  readonly title: string;
  /** What makes it hard, when something does. */
  readonly trap?: string;
  readonly steps: readonly Step[];
  /** Text the agent must have read after its last step for the task to count as done. */
  readonly done: string;
  /** Why it cannot run here, if it cannot (a package missing). */
  readonly needs?: 'python3-doc';
}

const textbox = (name: string): Target => ({ role: 'textbox', name });
const button = (name: string): Target => ({ role: 'button', name });
const link = (name: string): Target => ({ role: 'link', name });

export const TASKS: readonly Task[] = [
  {
    id: 'todomvc',
    title: 'TodoMVC (vanilla): add two items, show the active ones',
    steps: [
      { do: 'open', path: '/todomvc.html' },
      { do: 'submit', target: textbox('What needs to be done?'), text: 'Buy milk' },
      { do: 'submit', target: textbox('What needs to be done?'), text: 'Walk the dog' },
      { do: 'click', target: link('Active') },
    ],
    // The first item's label: had Enter not added it, the second text would have replaced it.
    done: 'Buy milk',
  },
  {
    id: 'late-todomvc',
    title: 'TodoMVC on an AMD loader whose modules arrive after DOMContentLoaded: add two items',
    trap: 'handlers attach late: an input sent at DOMContentLoaded submits the form natively',
    steps: [
      { do: 'open', path: '/late-app/index.html' },
      { do: 'submit', target: textbox('What needs to be done?'), text: 'Buy milk' },
      { do: 'submit', target: textbox('What needs to be done?'), text: 'Walk the dog' },
    ],
    // A native submit reloads the page and loses the items: the first one's label shows they were kept.
    done: 'Buy milk',
  },
  {
    id: 'sign-in',
    title: 'A sign-in form: email, password, sign in',
    steps: [
      { do: 'open', path: '/sdk/sign-in.html' },
      { do: 'fill', target: textbox('Email'), text: 'bob@example.com' },
      { do: 'fill', target: textbox('Password'), text: 'correct horse' },
      { do: 'click', target: button('Sign in') },
      // The sign-in request answers after the click has settled.
      { do: 'wait', text: 'Signed in as' },
    ],
    done: 'Signed in as bob@example.com',
  },
  {
    id: 'report',
    title: 'A report computed off the main thread: compute it and read the total',
    trap: 'the total appears after the click has settled',
    steps: [
      { do: 'open', path: '/report-app.html' },
      { do: 'click', target: button('Compute totals') },
      { do: 'wait', text: 'Total: 1000' },
    ],
    done: 'Total: 1000',
  },
  {
    id: 'news-consent',
    title: "A news article behind a OneTrust-style cookie banner: follow the article's link",
    trap: 'the banner covers the link',
    steps: [
      { do: 'open', path: '/news-consent.html' },
      { do: 'click', target: link('See the full timetable') },
    ],
    // The timetable folds out only when the link was followed.
    done: 'Timetable: 06:45',
  },
  {
    id: 'shop-consent',
    title: 'A shop behind a Cookiebot-style dialog: open the size guide',
    trap: 'the dialog covers the link',
    steps: [
      { do: 'open', path: '/shop-consent.html' },
      { do: 'click', target: link('Size guide') },
    ],
    done: 'S 36–38',
  },
  {
    id: 'cart-rerender',
    title: 'A cart rendered from state: three pairs of socks, then check out',
    trap: 'changing the quantity renders the summary anew: the "Check out" button seen before is gone',
    steps: [
      { do: 'open', path: '/cart-rerender.html' },
      { do: 'fill', target: { role: 'spinbutton', name: 'Quantity' }, text: '3' },
      { do: 'click', target: button('Check out') },
    ],
    done: 'Order placed: 3 × Wool socks',
  },
  {
    id: 'python-search',
    title: "Python's documentation (Debian's python3-doc): search for asyncio.gather and open its entry",
    trap: 'the results are computed by the page after it loads',
    needs: 'python3-doc',
    steps: [
      { do: 'open', path: '/python-docs/library/index.html' },
      { do: 'submit', target: textbox('Quick search'), text: 'asyncio.gather' },
      { do: 'wait', text: 'Search finished' },
      { do: 'click', target: link('asyncio.gather') },
    ],
    // The page's own first sentence: the results list names its title too.
    done: 'This section outlines high-level asyncio APIs',
  },
];
