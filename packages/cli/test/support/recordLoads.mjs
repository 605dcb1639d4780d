// `node --import` this file: it appends the URL of every module Node loads through its ES module
// loader to the file named by $ZKR_LOAD_LOG, one per line (module hooks run on a thread of their
// own: a file is what both threads share).
import { register } from 'node:module';

register(new URL('./loadLogHooks.mjs', import.meta.url));
