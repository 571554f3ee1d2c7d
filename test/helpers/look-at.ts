import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import type { Page } from 'playwright-core'
import { screenshotDir } from './reference.js'

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8')

/** The sizes every page is looked at: a 1366 px laptop and a 390 px phone. */
export const VIEWPORTS = {
  desktop: { width: 1366, height: 900 },
  phone: { width: 390, height: 844 },
} as const

export interface Finding {
  view: string
  problem: string
}

/** axe-core's serious and critical findings on the page as it is now. */
export async function accessibilityProblems(tab: Page): Promise<string[]> {
  // Evaluated through the browser's debugging protocol, which the page's CSP does not govern.
  await tab.evaluate(axeSource)
  const violations = await tab.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: { run(): Promise<{ violations: any[] }> } }).axe
    return (await axe.run()).violations.map((v) => ({
      id: v.id as string,
      impact: v.impact as string,
      targets: (v.nodes as Array<{ target: string[] }>).slice(0, 3).map((n) => n.target.join(' ')),
    }))
  })
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.impact} ${v.id}: ${v.targets.join(', ')}`)
}

/**
 * Looks at the page as a person would, at both sizes and in both themes: photographs each (to
 * docs/screenshots with HERALD_UPDATE_SCREENSHOTS=1, as `<name>-desktop.png`, `<name>-phone-dark.png`, ...),
 * and answers what is wrong: axe-core's serious and critical findings, and a phone page that scrolls sideways.
 * The page is left at the desktop size in the light theme.
 */
export async function lookAt(
  tab: Page,
  name: string,
  options: { fullPage?: boolean } = {},
): Promise<Finding[]> {
  const shots = screenshotDir()
  const findings: Finding[] = []
  for (const [size, viewport] of Object.entries(VIEWPORTS)) {
    await tab.setViewportSize(viewport)
    for (const scheme of ['light', 'dark'] as const) {
      await tab.emulateMedia({ colorScheme: scheme })
      const view = `${size}${scheme === 'dark' ? '-dark' : ''}`
      await tab.screenshot({
        path: path.join(shots, `${name}-${view}.png`),
        fullPage: options.fullPage ?? true,
      })
      for (const problem of await accessibilityProblems(tab)) findings.push({ view, problem })
      if (size === 'phone') {
        const wide = await tab.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)
        if (wide > 0) findings.push({ view, problem: `scrolls sideways by ${wide} px` })
      }
    }
  }
  await tab.setViewportSize(VIEWPORTS.desktop)
  await tab.emulateMedia({ colorScheme: 'light' })
  return findings
}
