// Module hooks (node:module register()): log each module's URL, then load it as Node would.
import { appendFileSync } from 'node:fs';

export async function load(url, context, nextLoad) {
  appendFileSync(process.env.ZKR_LOAD_LOG, `${url}\n`);
  return nextLoad(url, context);
}
