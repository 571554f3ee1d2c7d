#!/usr/bin/env node
// The `herald` command: the compiled CLI (`npm install` builds dist/ through the `prepare` script).
import { main } from '../dist/cli.js'

main(process.argv.slice(2))
