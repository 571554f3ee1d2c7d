#!/usr/bin/env node
// `npm start`: on the Node Herald runs on (fetched once when this machine's is older), the compiled
// service, API and worker in one process.
import { relaunchOnPinnedNode } from './node-runtime.js'

if (!relaunchOnPinnedNode()) {
  const { runService } = await import('../dist/main.js')
  runService('all')
}
