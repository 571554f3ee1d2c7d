/// <reference lib="dom" />
import {
  CategoryScale,
  Chart,
  Legend,
  LinearScale,
  LineController,
  LineElement,
  PointElement,
  Tooltip,
} from 'chart.js'

/**
 * The Analytics page's charts: each profile's followers and views over time, drawn from the readings the
 * page embeds as JSON. Counts never go below zero, so the axis starts at 0 (a flat series would otherwise
 * be drawn around itself, down to negative values). The colours are the theme's own tokens.
 */

Chart.register(LineController, LineElement, PointElement, LinearScale, CategoryScale, Legend, Tooltip)

interface Point {
  at: number
  summary: Record<string, number | null>
}

const token = (name: string) => getComputedStyle(document.documentElement).getPropertyValue(name).trim()

const SERIES = [
  { key: 'followers', label: 'Followers', colour: '--primary' },
  { key: 'views', label: 'Views', colour: '--ok-text' },
] as const

/** Gives a chart the theme's current colours (again when the system switches between light and dark). */
function paint(chart: Chart<'line'>) {
  const text = token('--text-muted')
  const grid = token('--border')
  const scales = chart.options.scales ?? {}
  for (const axis of [scales.x, scales.y]) {
    if (!axis) continue
    if (axis.ticks) axis.ticks.color = text
    if (axis.grid) axis.grid.color = grid
  }
  const legend = chart.options.plugins?.legend?.labels
  if (legend) legend.color = text
  for (const [i, dataset] of chart.data.datasets.entries()) {
    const colour = token(SERIES.find((s) => s.label === dataset.label)?.colour ?? SERIES[i % 2]!.colour)
    dataset.borderColor = colour
    dataset.backgroundColor = colour
  }
  chart.update()
}

function draw(canvas: HTMLCanvasElement): Chart<'line'> | undefined {
  const source = canvas.dataset.series ? document.getElementById(canvas.dataset.series) : null
  if (!source?.textContent) return
  const points = JSON.parse(source.textContent) as Point[]
  const text = token('--text-muted')
  const grid = token('--border')
  const datasets = SERIES.filter(({ key }) => points.some((p) => typeof p.summary[key] === 'number')).map(
    ({ key, label, colour }) => ({
      label,
      data: points.map((p) => p.summary[key] ?? null),
      borderColor: token(colour),
      backgroundColor: token(colour),
      pointRadius: 3,
      tension: 0.25,
    }),
  )
  return new Chart(canvas, {
    type: 'line',
    data: { labels: points.map((p) => new Date(p.at).toLocaleDateString()), datasets },
    options: {
      animation: false,
      responsive: true,
      maintainAspectRatio: false,
      spanGaps: true,
      scales: {
        x: { ticks: { color: text, maxRotation: 0, autoSkip: true }, grid: { color: grid } },
        y: { min: 0, beginAtZero: true, ticks: { color: text, precision: 0 }, grid: { color: grid } },
      },
      plugins: { legend: { labels: { color: text, boxWidth: 12 } } },
    },
  })
}

const charts: Chart<'line'>[] = []
for (const canvas of document.querySelectorAll<HTMLCanvasElement>('canvas[data-series]')) {
  // The canvas sizes itself to a wrapper the script adds (a fixed height the page's CSS gives it).
  const frame = document.createElement('div')
  frame.className = 'chart-frame'
  canvas.replaceWith(frame)
  frame.append(canvas)
  const chart = draw(canvas)
  if (chart) charts.push(chart)
}
matchMedia('(prefers-color-scheme: dark)').addEventListener('change', () => {
  for (const chart of charts) paint(chart)
})
