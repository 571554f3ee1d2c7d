#!/usr/bin/env node
// `node bin/with-node.js COMMAND ARGS…`: runs a command (npm test's steps, the benchmarks, the simulation)
// with the Node Herald runs on first on PATH, so that `npm`, `tsx` and `vitest` inside it run on that
// Node. On a machine whose Node is recent enough, the command runs as it is; with `--pinned` first it runs
// on the pinned release all the same (the benchmarks, whose figures name that release).
import { spawn } from 'node:child_process'
import { ensureRuntime, runtimeEnv } from './node-runtime.js'

const rest = process.argv.slice(2)
const pinned = rest[0] === '--pinned'
const [command, ...args] = pinned ? rest.slice(1) : rest
if (!command) {
  process.stderr.write('usage: node bin/with-node.js [--pinned] COMMAND [ARGS…]\n')
  process.exit(2)
}
let home
try {
  home = ensureRuntime(pinned ? { ...process.env, HERALD_PINNED_NODE: '1' } : process.env)
} catch (error) {
  process.stderr.write(`${error.message}\n`)
  process.exit(1)
}
const child = spawn(command, args, {
  stdio: 'inherit',
  env: home ? runtimeEnv(home) : process.env,
  shell: process.platform === 'win32',
})
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => child.kill(signal))
child.on('error', (error) => {
  process.stderr.write(`${command}: ${error.message}\n`)
  process.exit(1)
})
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)))
