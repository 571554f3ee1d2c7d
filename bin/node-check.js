// Checks the Node.js version before anything else is loaded (issue 23 finding 12). Plain JavaScript with
// no dependencies, so that it runs on any Node: an older one would otherwise crash loading Herald's native
// modules (a segmentation fault on Node 20) instead of saying what is wrong.
import { readFileSync } from 'node:fs'

/** The lowest version package.json's `engines.node` (`>=MAJOR.MINOR`) allows, as [major, minor]. */
export function requiredNode() {
  const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'))
  const match = /^>=\s*(\d+)(?:\.(\d+))?/.exec(manifest.engines?.node ?? '')
  return match ? [Number(match[1]), Number(match[2] ?? 0)] : [0, 0]
}

/** The one line to print when `version` (e.g. `20.18.0`) is too old; undefined when it will do. */
export function nodeProblem(version = process.versions.node, required = requiredNode()) {
  const [major, minor] = version.split('.').map(Number)
  const [needMajor, needMinor] = required
  if (major > needMajor || (major === needMajor && minor >= needMinor)) return undefined
  return `Herald needs Node.js ${needMajor}.${needMinor} or newer (Node 24 LTS recommended); this is Node.js ${version}. Install a newer Node, then run npm install again.`
}

/** Exits with that line (status 1) when this Node is too old. */
export function requireSupportedNode() {
  const problem = nodeProblem()
  if (problem) {
    process.stderr.write(`${problem}\n`)
    process.exit(1)
  }
}
