import fs from 'node:fs'
import path from 'node:path'
import { isFunctionLikeDeclaration, type Node, type SourceFile, SyntaxKind } from 'typescript/unstable/ast'
import { API } from 'typescript/unstable/sync'
import { describe, expect, it } from 'vitest'

/**
 * STYLE.md: a function reads as the story of what it does, and none in `src/` passes 100 lines. The network
 * simulators (`src/sandbox/`) and the numbered migrations (`src/platform/db/migrations/`) are exempt: a simulator
 * mirrors a network's own shape, and a migration is a frozen list of DDL that is never edited again.
 *
 * A function is every function-like node (declarations, expressions, arrows, methods, accessors,
 * constructors, object-literal methods), measured from its first to its last line. A function holding a long
 * nested arrow counts the arrow's lines too, so splitting the inner one shortens both.
 */

const MAX_LINES = 100
const root = path.resolve(import.meta.dirname, '../..')
const src = path.join(root, 'src')
const exempt = [path.join(src, 'sandbox'), path.join(src, 'platform', 'db', 'migrations')]

interface LongFunction {
  where: string
  name: string
  lines: number
}

function sourceFilesUnder(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name)
    if (exempt.includes(full)) return []
    if (entry.isDirectory()) return sourceFilesUnder(full)
    return /\.tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [full] : []
  })
}

/** The name a reader would look for: the declaration's own, or what the function is assigned or passed to. */
function functionName(node: Node, file: SourceFile): string {
  const own = (node as { name?: Node }).name
  if (own) return own.getText(file)
  if (node.kind === SyntaxKind.Constructor) return 'constructor'
  const parent = node.parent
  const named = (parent as { name?: Node }).name
  if (named && parent.kind !== SyntaxKind.CallExpression) return named.getText(file)
  if (parent.kind === SyntaxKind.CallExpression) {
    const callee = (parent as unknown as { expression: Node }).expression.getText(file)
    return `(callback of ${callee.length > 40 ? `${callee.slice(0, 40)}...` : callee})`
  }
  return '(anonymous)'
}

function longFunctionsIn(file: SourceFile): LongFunction[] {
  const found: LongFunction[] = []
  const visit = (node: Node): void => {
    if (isFunctionLikeDeclaration(node) && (node as { body?: Node }).body) {
      const start = file.getLineAndCharacterOfPosition(node.getStart(file)).line
      const end = file.getLineAndCharacterOfPosition(node.getEnd()).line
      const lines = end - start + 1
      if (lines > MAX_LINES) {
        const where = `${path.relative(root, file.fileName)}:${start + 1}`
        found.push({ where, name: functionName(node, file), lines })
      }
    }
    node.forEachChild(visit)
  }
  visit(file)
  return found
}

/** Parses through the TypeScript 7 API server, which reads the project's files as `tsc` does. */
function findLongFunctions(): LongFunction[] {
  const api = new API({ cwd: root })
  try {
    const project = api.updateSnapshot({ openProject: path.join(root, 'tsconfig.json') }).getProjects()[0]
    if (!project) throw new Error('tsconfig.json opened no project')
    return sourceFilesUnder(src).flatMap((fileName) => {
      const file = project.program.getSourceFile(fileName)
      if (!file) throw new Error(`${fileName} is not in tsconfig.json's program`)
      return longFunctionsIn(file)
    })
  } finally {
    api.close()
  }
}

describe('function length', () => {
  it(`no function in src is longer than ${MAX_LINES} lines`, { timeout: 60_000 }, () => {
    const report = findLongFunctions().map((f) => `${f.where} ${f.name} (${f.lines} lines)`)
    expect(report).toEqual([])
  })
})
