/**
 * The watching side of the cross-process delete-to-watch floor: a separate Node process with its
 * own raw session. For each stdin line `<path>` it sets an exists watch and prints
 * `{"type":"armed"}`; when the watch fires it prints `{"type":"fired","at":"<hrtime ns>"}`.
 * Usage: watchProcess.ts <connectString>
 */
import { createInterface } from 'node:readline';
import { RawZk } from './rawZk.js';

const [connectString] = process.argv.slice(2);
if (connectString === undefined) throw new Error('usage: watchProcess.ts <connectString>');
const zk = await RawZk.connect(connectString);
const say = (line: object): void => void process.stdout.write(`${JSON.stringify(line)}\n`);
const rl = createInterface({ input: process.stdin });
rl.on('line', (path) => {
  void zk
    .existsWatch(path.trim(), () => say({ type: 'fired', at: process.hrtime.bigint().toString() }))
    .then((exists) => say({ type: exists ? 'armed' : 'missing' }));
});
rl.on('close', () => zk.close());
say({ type: 'ready' });
