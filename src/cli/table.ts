// The client commands of `pagewire` (they run against a server: PAGEWIRE_URL or --url). They
// share one module, loaded only when one of them runs.
import type { CommandEntry, CommandModule } from './dispatch.ts';

const CLIENT_COMMANDS: ReadonlyArray<readonly [name: string, usage: string, summary: string]> = [
  ['open', 'open URL [--new-tab]', 'load URL in the selected tab (or a new one) and print the page'],
  [
    'observe',
    'observe [--text] [--max N] [--since] [--frame ID] [--max-bytes N] [--cursor C]',
    'print the page as a tree with refs (@1, @2…); --max-bytes cuts it, --cursor C reads on',
  ],
  ['read', 'read [URL] [--max N] [--frame ID]', 'print the main content as Markdown, refs inline (URL: load it first)'],
  ['find', 'find WORDS… [--role ROLE] [--frame ID]', 'print only the elements matching WORDS, from the whole page, with refs to act on'],
  [
    'wait',
    'wait TEXT|--url-glob GLOB|--selector CSS [--state S] [--timeout MS]',
    'wait for text, a URL or an element, then print the page',
  ],
  ['act', "act '{JSON}'", 'run an action object, or a batch ({"actions": […]}), on the last observation'],
  ['drag', 'drag REF TO_REF', 'drag an element onto another'],
  ['upload', 'upload REF PATH [PATH…]', "give files to a file input (paths under the server's --uploads root)"],
  ['frames', 'frames [list | select ID]', "list the tab's frames, or observe and act in one"],
  ['cancel', 'cancel', "interrupt the session's running call"],
  [
    'session',
    'session new [--name N] [--endpoint URL] | session close',
    'create a session (on a farm endpoint the server allows) and print its id; close one (its tabs go with it)',
  ],
  ['click', 'click REF|--x X --y Y [--button B] [--count N] [--modifiers M,M]', 'click an element of the last observation (or a point)'],
  ['type', 'type REF TEXT|--secret NAME [--submit] [--clear]', 'type TEXT (or a server secret, by name) into a field'],
  ['fill', 'fill REF TEXT|--secret NAME', "replace a field's value with TEXT (or a server secret, by name)"],
  ['select', 'select REF VALUE [VALUE…] [--label]', 'choose options by value (or one by label)'],
  ['check', 'check REF [on|off]', 'check (or uncheck) a checkbox, radio or switch'],
  ['hover', 'hover REF', 'move the mouse over an element'],
  ['press', 'press KEY [REF]', 'press a key (Enter, Tab, Control+A…), on REF if given'],
  ['scroll', 'scroll [down|up|left|right] [PIXELS] [--ref REF]', 'scroll the page (or inside REF)'],
  ['back', 'back', 'go back in history'],
  ['forward', 'forward', 'go forward in history'],
  ['reload', 'reload', 'reload the page'],
  [
    'screenshot',
    'screenshot FILE [--full] [--ref REF] [--annotate] [--refs @1,@2]',
    'save a PNG (or JPEG for .jpg); --annotate draws the refs on it',
  ],
  ['pdf', 'pdf [FILE] [--landscape] [--paper a4] [--ranges 1-2]', "print the page to a PDF (copied to FILE, else the server's path)"],
  ['trace', 'trace start|stop|export [FILE]', "record the session's calls (with screenshots), stop, or write them as a zip"],
  ['tabs', 'tabs [new URL | select ID | close ID]', 'list, open, select or close tabs'],
  ['dialog', 'dialog accept|dismiss [TEXT]', 'answer a pending alert/confirm/prompt'],
  ['events', 'events [--follow] [--kinds K,K] [--all]', 'print the events since the last `events`'],
];

/** What the client commands' module exports: one runner for all of them. */
export interface ClientCommandsModule {
  runClient(name: string, argv: string[]): Promise<number>;
}

export function clientCommands(load: () => Promise<ClientCommandsModule>): Record<string, CommandEntry> {
  return Object.fromEntries(
    CLIENT_COMMANDS.map(([name, usage, summary]) => [
      name,
      {
        usage,
        summary,
        load: async (): Promise<CommandModule> => {
          const module = await load();
          return { run: (argv) => module.runClient(name, argv) };
        },
      },
    ]),
  );
}

export function usageOf(name: string): string | undefined {
  return CLIENT_COMMANDS.find(([n]) => n === name)?.[1];
}
