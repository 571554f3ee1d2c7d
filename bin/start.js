#!/usr/bin/env node
// `npm start`: on the Node Herald runs on (fetched once when this machine's is older), the compiled
// service, API and worker in one process.
import module from 'node:module'
import { relaunchOnPinnedNode } from './node-runtime.js'

if (!relaunchOnPinnedNode()) {
  // V8's compiled code kept on disk between runs: a command loads Herald's modules without compiling them again.
  module.enableCompileCache?.()
  const { runService } = await import('../dist/main.js')
  runService('all')
}
