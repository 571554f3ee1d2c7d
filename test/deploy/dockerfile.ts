/**
 * The Dockerfile as its instructions, for the tests that check it and play its steps without a Docker
 * engine: comments dropped, continued lines joined, each instruction split into its keyword and its text,
 * grouped by stage (each FROM starts one).
 */

export interface Instruction {
  keyword: string
  args: string
}

export interface Stage {
  from: string
  name: string | undefined
  instructions: Instruction[]
}

export function parseDockerfile(text: string): Stage[] {
  const lines: string[] = []
  let pending = ''
  for (const raw of text.split('\n')) {
    const line = raw.trimEnd()
    if (pending === '' && (line.trim() === '' || line.trimStart().startsWith('#'))) continue
    if (line.endsWith('\\')) pending += `${line.slice(0, -1).trim()} `
    else {
      lines.push(`${pending}${line.trim()}`)
      pending = ''
    }
  }
  const stages: Stage[] = []
  for (const line of lines) {
    const [keyword = '', ...rest] = line.split(/\s+/)
    const args = rest.join(' ')
    if (keyword.toUpperCase() === 'FROM') {
      const [from = '', as, name] = args.split(/\s+/)
      stages.push({ from, name: as?.toUpperCase() === 'AS' ? name : undefined, instructions: [] })
    } else stages.at(-1)?.instructions.push({ keyword: keyword.toUpperCase(), args })
  }
  return stages
}

/** An exec-form argument list (`["npm", "start"]`); undefined for the shell form. */
export function execForm(args: string): string[] | undefined {
  const text = args.trim()
  if (!text.startsWith('[')) return undefined
  return JSON.parse(text) as string[]
}

/** A COPY's sources and destination, and the stage it copies from (`--from=build`). */
export function copyOf(args: string): { from: string | undefined; sources: string[]; destination: string } {
  const words = args.split(/\s+/)
  const from = words.find((w) => w.startsWith('--from='))?.slice('--from='.length)
  const paths = words.filter((w) => !w.startsWith('--'))
  return { from, sources: paths.slice(0, -1), destination: paths.at(-1) as string }
}

/** ENV's pairs (`ENV A=1 B=2`). */
export function envOf(args: string): Record<string, string> {
  return Object.fromEntries(
    args
      .split(/\s+/)
      .filter((pair) => pair.includes('='))
      .map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]),
  )
}
