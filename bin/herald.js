#!/usr/bin/env node
// The `herald` command: the compiled CLI (`npm install` builds dist/ through the `prepare` script), on the
// Node Herald runs on (fetched once when this machine's is older), checked before the CLI and its native
// modules are loaded.
import module from 'node:module'
import { relaunchOnPinnedNode } from './node-runtime.js'

if (!relaunchOnPinnedNode()) {
  // V8's compiled code kept on disk between runs: a command loads Herald's modules without compiling them again.
  module.enableCompileCache?.()
  const { main } = await import('../dist/cli.js')
  main(process.argv.slice(2))
}
