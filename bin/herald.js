#!/usr/bin/env node
// The `herald` command: the compiled CLI (`npm install` builds dist/ through the `prepare` script). The
// Node version is checked before the CLI (and its native modules) is loaded.
import { requireSupportedNode } from './node-check.js'

requireSupportedNode()
const { main } = await import('../dist/cli.js')
main(process.argv.slice(2))
