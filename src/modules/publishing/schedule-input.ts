import { checkSlot, instantToSlot, isPastSlot, type Slot, slotToInstant } from '../../core/schedule.js'
import { invalid } from '../../platform/errors.js'

export interface ResolvedSchedule extends Slot {
  dueAt: number
}

/** A requested slot as a due instant, or a 400 naming what is wrong with it (format, zone, past). */
export function resolveSlot(slot: Slot, now: number): ResolvedSchedule {
  const problems = checkSlot(slot)
  if (problems.length > 0) throw invalid(problems.map((p) => p.message).join('; '), problems)
  const dueAt = slotToInstant(slot)
  if (isPastSlot(dueAt, now)) {
    throw invalid(
      `The slot ${slot.date} ${slot.time} ${slot.timezone} is in the past (${new Date(dueAt).toISOString()})`,
      [{ path: 'scheduleDate', message: 'scheduleDate and scheduleTime name a moment in the past' }],
    )
  }
  return { ...slot, dueAt }
}

/** create_post's schedule: now for an immediate post, otherwise the given slot (both fields required). */
export function resolveCreateSchedule(
  input: {
    publishImmediately: boolean
    scheduleDate?: string | undefined
    scheduleTime?: string | undefined
    timezone: string
  },
  now: number,
): ResolvedSchedule {
  if (input.publishImmediately) {
    const problems = checkSlot({ date: '2000-01-01', time: '00:00', timezone: input.timezone })
    if (problems.length > 0) throw invalid(problems.map((p) => p.message).join('; '), problems)
    return { ...instantToSlot(now, input.timezone), dueAt: now }
  }
  const missing = [
    input.scheduleDate === undefined && 'scheduleDate',
    input.scheduleTime === undefined && 'scheduleTime',
  ].filter(Boolean)
  if (missing.length > 0) {
    throw invalid(
      `${missing.join(' and ')} ${missing.length > 1 ? 'are' : 'is'} required unless publishImmediately is true`,
      missing.map((field) => ({ path: field, message: `${field} is required` })),
    )
  }
  return resolveSlot(
    { date: input.scheduleDate as string, time: input.scheduleTime as string, timezone: input.timezone },
    now,
  )
}
