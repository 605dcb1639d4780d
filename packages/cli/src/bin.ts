#!/usr/bin/env node
/** The `zk-recipes` executable: the command line, Ctrl-C ending a `--watch`, the exit code. */
import { main } from './main.js';

const stop = new AbortController();
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => stop.abort());
process.exitCode = await main(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr, env: process.env, signal: stop.signal });
