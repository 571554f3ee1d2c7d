#!/usr/bin/env node
// The `herald` command: the compiled CLI (`npm install` builds dist/ through the `prepare` script), on the
// Node Herald runs on (fetched once when this machine's is older), checked before the CLI and its native
// modules are loaded.
import { relaunchOnPinnedNode } from './node-runtime.js'

if (!relaunchOnPinnedNode()) {
  const { main } = await import('../dist/cli.js')
  main(process.argv.slice(2))
}
