// `pagewire stop`: ends the background server the client commands started (background.ts), and
// with it the browser it launched. A server started by hand is the user's to stop.
import process from 'node:process';
import { stopBackgroundServer } from './background.ts';
import { stateDir } from './state.ts';

export async function run(argv: string[]): Promise<number> {
  if (argv.length > 0 && !(argv.length === 1 && argv[0] === '--help')) {
    process.stderr.write('pagewire stop: takes no arguments\nusage: pagewire stop\n');
    return 2;
  }
  if (argv[0] === '--help') {
    process.stdout.write('usage: pagewire stop\n');
    return 0;
  }
  const pid = await stopBackgroundServer(stateDir(process.env));
  process.stdout.write(
    pid === undefined ? 'no background server was running\n' : `stopped the background server (pid ${pid}) and its browser\n`,
  );
  return 0;
}
