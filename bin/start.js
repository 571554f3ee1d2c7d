#!/usr/bin/env node
// `npm start`: checks the Node version first, then runs the compiled service (API and worker).
import { requireSupportedNode } from './node-check.js'

requireSupportedNode()
const { runService } = await import('../dist/main.js')
runService('all')
