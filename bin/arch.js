#!/usr/bin/env node
// `npm run arch`: checks the floors of src/ (core, platform, adapters, modules, interfaces, sandbox and the
// composition root) against the rules in .dependency-cruiser.cjs, and exits non-zero when an import breaks one.
//
// dependency-cruiser reads TypeScript only through the JavaScript API of the TypeScript compiler, which
// TypeScript 7 (the native compiler Herald builds with) no longer ships: pointed at src/ it finds no module
// at all and passes. So this writes a scratch copy of src/ with the types stripped by Node's own stripper,
// type-only imports kept as imports (a type is a dependency between folders too), and cruises that copy.
// Each file keeps its path (`x.ts` becomes `x.js`, which is what the import specifiers already say), and the
// report names the `.ts` files again.
import { spawnSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { stripTypeScriptTypes } from 'node:module'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { transformSync } from 'esbuild'

const projectRoot = fileURLToPath(new URL('..', import.meta.url))
const config = path.join(projectRoot, '.dependency-cruiser.cjs')

if (typeof stripTypeScriptTypes !== 'function') {
  process.stderr.write('npm run arch needs a Node.js with module.stripTypeScriptTypes (22.13 or later)\n')
  process.exit(1)
}
// The stripper is marked experimental; its one-line warning on every run says nothing about Herald.
process.removeAllListeners('warning')

/** Every file under `dir`, as paths relative to it. */
function filesUnder(dir, prefix = '') {
  return readdirSync(path.join(dir, prefix), { withFileTypes: true }).flatMap((entry) => {
    const relative = path.join(prefix, entry.name)
    return entry.isDirectory() ? filesUnder(dir, relative) : [relative]
  })
}

/**
 * The module's imports as JavaScript that still names every dependency: `import type` (and a type-only
 * re-export) loses `type`, so does a `type` specifier, and every `import('…')` (a lazy load, or a type written inline) is
 * kept as an expression at the end, where the stripper leaves it alone.
 */
function withTypeImportsKept(source) {
  const kept = source
    .replace(/^import type (?=[{*\w])/gm, 'import ')
    .replace(/^export type (?=(\{[^}]*\}|\*)\s*from\b)/gm, 'export ')
    .replace(/^(import|export)\s*\{[^}]*\}\s*from/gm, (statement) =>
      statement.replace(/([{,]\s*)type\s+(?=\w)/g, '$1'),
    )
  const lazy = [...source.matchAll(/\bimport\(\s*(['"])(\.{1,2}\/[^'"]+)\1\s*\)/g)].map(
    (match) => `void import('${match[2]}')`,
  )
  return `${kept}\n${lazy.join('\n')}\n`
}

/** The page templates (.tsx) among the files, by path without extension, so reports name them as they are. */
const templates = new Set()

/** Writes the stripped copy of src/ under `scratch`; false (said on stderr) when a file cannot be read. */
function writeStrippedCopy(scratch) {
  for (const file of filesUnder(path.join(projectRoot, 'src'))) {
    const jsx = file.endsWith('.tsx')
    if (!(file.endsWith('.ts') || jsx) || file.endsWith('.d.ts')) continue
    const source = readFileSync(path.join(projectRoot, 'src', file), 'utf8')
    let code
    try {
      // Node's stripper reads no JSX: a page template (.tsx) is compiled by esbuild, keeping every import.
      code = jsx
        ? transformSync(withTypeImportsKept(source), {
            loader: 'tsx',
            jsx: 'automatic',
            jsxImportSource: 'preact',
            tsconfigRaw: { compilerOptions: { verbatimModuleSyntax: true } },
            sourcefile: file,
          }).code
        : stripTypeScriptTypes(withTypeImportsKept(source), { mode: 'transform', sourceUrl: file })
      if (jsx) templates.add(`src/${file.replace(/\.tsx$/, '')}`)
    } catch (error) {
      process.stderr.write(`npm run arch: could not read src/${file}: ${error.message}\n`)
      return false
    }
    const target = path.join(scratch, 'src', file.replace(/\.tsx?$/, '.js'))
    mkdirSync(path.dirname(target), { recursive: true })
    writeFileSync(target, code)
  }
  return true
}

/** Cruises the copy; the exit code: 0 when every rule holds. */
function cruise(scratch) {
  const cli = path.join(projectRoot, 'node_modules/dependency-cruiser/bin/dependency-cruiser.mjs')
  const args = [cli, 'src', '--config', config, '--output-type', 'err-long', ...process.argv.slice(2)]
  const run = spawnSync(process.execPath, args, { cwd: scratch, encoding: 'utf8' })
  const named = (text) =>
    text.replace(/\b(src\/[\w./-]+?)\.js\b/g, (_, name) => `${name}.${templates.has(name) ? 'tsx' : 'ts'}`)
  process.stdout.write(named(run.stdout ?? ''))
  process.stderr.write(named(run.stderr ?? ''))
  // dependency-cruiser exits with the number of errors, which the system takes modulo 256 (256 broken
  // imports would read as none), and a cruise that finds no module passes: the report's counts decide too.
  const errors = Number(/\((\d+) errors?,/.exec(run.stdout ?? '')?.[1] ?? 0)
  const modules = Number(/(\d+) modules, \d+ dependencies cruised/.exec(run.stdout ?? '')?.[1] ?? 0)
  if (modules === 0) process.stderr.write('npm run arch: no module of src/ was cruised\n')
  return run.status === 0 && errors === 0 && modules > 0 ? 0 : 1
}

const scratch = mkdtempSync(path.join(tmpdir(), 'herald-arch-'))
try {
  process.exitCode = writeStrippedCopy(scratch) ? cruise(scratch) : 1
} finally {
  rmSync(scratch, { recursive: true, force: true })
}
