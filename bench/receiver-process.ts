/**
 * The webhook benchmark's receiver, in a process of its own: a receiver is another system than the social
 * network the worker publishes to, and sharing the stand-in network's event loop would slow that network's
 * answers whenever events arrive. Prints `listening <url>`; on an IPC `report` message answers with what
 * arrived (webhook-id, arrival time, the event's timestamp), in arrival order; on `count`, with how many.
 */
import { setPriority } from 'node:os'
import { startReceiver } from '../test/helpers/webhook-receiver.js'

// The lowest CPU priority: the receiver stands in for a system on another machine, so it takes only CPU
// that Herald leaves idle (docs/benchmarks.md, Webhooks).
setPriority(19)

const receiver = await startReceiver()
process.on('message', (message) => {
  if (message === 'count') process.send?.(receiver.accepted.length)
  if (message === 'report') process.send?.(receiver.accepted.map((r) => [r.id, r.at, r.event.timestamp]))
})
process.on('disconnect', () => void receiver.close().then(() => process.exit(0)))
process.stdout.write(`listening ${receiver.url}\n`)
