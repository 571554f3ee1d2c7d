#!/usr/bin/env node
// The dashboard's static files, bundled by esbuild into dist/assets/ with a hash of their content in each
// name (so the browser keeps one for a year and never a stale one), and a manifest that maps each entry's
// name to its file: the server reads it to link the pages to them (src/interfaces/dashboard/ui/assets.ts).
import { existsSync, readdirSync } from 'node:fs'
import { mkdir, rm, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { build } from 'esbuild'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const outdir = path.join(root, 'dist', 'assets')
/**
 * Each bundle by the name pages link it with: the stylesheet, and the browser's scripts in
 * src/interfaces/dashboard/client/ (each file there directly is one page's script; what they share lives in
 * its subfolders).
 */
const clientDir = 'src/interfaces/dashboard/client'
/** The MCP Apps views' scripts (one per file directly in the folder) and stylesheet, inlined into each view. */
const viewsDir = 'src/interfaces/mcp-apps/client'
const scriptsIn = (dir, prefix = '') =>
  Object.fromEntries(
    (existsSync(path.join(root, dir)) ? readdirSync(path.join(root, dir)) : [])
      .filter((file) => /\.tsx?$/.test(file))
      .map((file) => [`${prefix}${file.replace(/\.tsx?$/, '.js')}`, `${dir}/${file}`]),
  )
const entries = {
  'herald.css': 'src/interfaces/dashboard/ui/styles/herald.css',
  ...scriptsIn(clientDir),
  'mcp-app.css': `${viewsDir}/view.css`,
  ...scriptsIn(viewsDir, 'mcp-app-'),
}

await rm(outdir, { recursive: true, force: true })
await mkdir(outdir, { recursive: true })
const result = await build({
  absWorkingDir: root,
  entryPoints: Object.values(entries),
  outdir,
  entryNames: '[name]-[hash]',
  bundle: true,
  minify: true,
  format: 'esm',
  target: 'es2022',
  jsx: 'automatic',
  jsxImportSource: 'preact',
  metafile: true,
  logLevel: 'warning',
})
const manifest = {}
for (const [file, output] of Object.entries(result.metafile.outputs)) {
  if (!output.entryPoint) continue
  const name = Object.keys(entries).find((key) => entries[key] === output.entryPoint)
  if (name) manifest[name] = path.basename(file)
}
await writeFile(path.join(outdir, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`)
